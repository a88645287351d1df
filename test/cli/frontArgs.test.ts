import { expect, test } from 'vitest'
import { readFrontArgs } from '../../src/cli/frontArgs.js'
import { parseStartArgs, startFlags } from '../../src/cli/start.js'

// The front's reader of plain `devnet start` arguments (src/cli/frontArgs.ts) against parseArgs
// (parseStartArgs): whatever it reads, it reads as parseArgs does; what it leaves, parseArgs decides.

/** parseStartArgs' answer with a plain object for values (parseArgs makes a null-prototype one), or its error. */
function parsed(argv: string[]) {
  try {
    const { values, positionals } = parseStartArgs(argv)
    return { values: { ...values }, positionals }
  } catch (error) {
    return { error: (error as Error).message }
  }
}

test('the command lines a start is given read as parseArgs reads them', () => {
  const lines = [
    [],
    ['start'],
    ['start', '--quiet', '--mining', 'auto', '--no-ui', '--port', '8545'],
    ['start', '--quiet', '--fork-url', 'http://127.0.0.1:8545', '--fork-block', '500', '--fork-cache', '/tmp/c', '--mining', 'auto', '--no-ui', '--port', '0'],
    ['--port=0', '--host=0.0.0.0', 'start', '--fork-offline'],
    ['--port', '1', '--port', '2'],
    ['--port='],
    ['--chain-id=-5'],
    ['--config', 'start'],
    ['start', '--help'],
    ['--version'],
  ]
  for (const argv of lines) {
    const read = readFrontArgs(argv)
    expect(read, argv.join(' ')).toBeDefined()
    expect({ values: { ...read!.values }, positionals: read!.positionals }, argv.join(' ')).toEqual(parsed(argv))
  }
})

test('what it does not read is left to parseArgs: short flags, --, unknown flags, bad values, other commands', () => {
  for (const argv of [
    ['-h'],
    ['start', '--'],
    ['--bogus'],
    ['--quiet=yes'],
    ['--port'],
    ['--port', '-5'],
    ['--port', '--quiet'],
    ['fixture', 'dump'],
    ['start', 'start'],
    ['version'],
    ['-'],
    ['--=x'],
    ['--toString'],
  ])
    expect(readFrontArgs(argv), argv.join(' ')).toBeUndefined()
})

test('every flag of startFlags, in both spellings, and mixed orders, read as parseArgs reads them', () => {
  const names = Object.keys(startFlags) as (keyof typeof startFlags)[]
  let seed = 7
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31
    return seed % n
  }
  for (let round = 0; round < 500; round++) {
    const argv: string[] = []
    if (random(2)) argv.push('start')
    for (let k = random(6); k > 0; k--) {
      const name = names[random(names.length)]!
      if (startFlags[name].type === 'boolean') argv.push(`--${name}`)
      else if (random(2)) argv.push(`--${name}=v${random(3)}`)
      else argv.push(`--${name}`, random(4) ? `v${random(3)}` : 'start')
    }
    if (random(4) === 0) argv.splice(random(argv.length + 1), 0, 'start')
    const read = readFrontArgs(argv)
    const expected = parsed(argv)
    if (read === undefined) {
      // Left to parseArgs here only when it finds another command than one `start` (a second `start`, or a
      // `start` inserted between a flag and its value): the front does not listen for those either.
      const positionals = expected.positionals!
      expect(positionals.length > 1 || (positionals[0] ?? 'start') !== 'start', argv.join(' ')).toBe(true)
      continue
    }
    expect({ values: { ...read.values }, positionals: read.positionals }, argv.join(' ')).toEqual(expected)
  }
})
