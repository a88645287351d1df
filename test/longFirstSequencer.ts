import { relative } from 'node:path'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

/**
 * Files measured as the longest on the 2-core CI machine (seconds in a clean
 * run), longest first. A clean clone has no vitest duration cache, so the
 * base sequencer orders by file size and a 19 s file can start last and
 * leave one worker idle at the end. These start first; every other file
 * keeps the base order (the cache's durations when it exists).
 */
const longFirst = [
  'test/stress/concurrency.test.ts', // 19 s
  'test/stress/crashFixture.test.ts', // 17 s
  'test/engine/isolation.test.ts', // 17 s
  'test/fuzz/malformed.test.ts', // 17 s
  'test/engine/differential.test.ts', // 16 s
  'test/harness/suite.test.ts', // 10 s
  'test/bundle.test.ts', // 10 s
  'test/ui/page.test.ts', // 10 s
  'test/token/eip3009.test.ts', // 8 s
  'test/conformance/import.test.ts', // 8 s
]

export default class LongFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files)
    const rank = (spec: TestSpecification) => {
      const at = longFirst.indexOf(relative(this.ctx.config.root, spec.moduleId).replaceAll('\\', '/'))
      return at === -1 ? longFirst.length : at
    }
    // Array.prototype.sort is stable: unlisted files keep the base order.
    return sorted.sort((a, b) => rank(a) - rank(b))
  }
}
