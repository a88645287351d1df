import { afterEach, describe, expect, it, vi } from 'vitest'
import { createAutoSeal } from '../../src/node/autoSeal.js'

type Block = { senders: string[] }
const turn = () => new Promise<void>((resolve) => setImmediate(resolve))

/** An auto-seal over a fake queue: `waiting` is what the pool holds; a seal takes all of it, from `from`. */
function harness() {
  let waiting: string[] = []
  const seals: string[][] = []
  const auto = createAutoSeal<Block>({
    seal: async (started) => {
      started()
      const senders = waiting
      waiting = []
      seals.push(senders)
      return { senders }
    },
    waiting: () => waiting.length,
    senders: (block) => block.senders,
    maxWaitMs: 2,
  })
  const submit = (from: string) => {
    waiting.push(from)
    return auto.request()
  }
  return { submit, seals }
}

afterEach(() => {
  vi.useRealTimers()
})

describe('auto mining seal scheduling', () => {
  it('seals a lone transaction after one event-loop turn, and one client sending from accounts in turn never waits', async () => {
    const { submit, seals } = harness()
    for (const from of ['a', 'b', 'a', 'b', 'c']) {
      const sealed = submit(from)
      await turn()
      expect(seals.at(-1)).toEqual([from])
      expect((await sealed).senders).toEqual([from])
    }
    expect(seals).toHaveLength(5)
  })

  it('puts transactions admitted in the same turn into one block', async () => {
    const { submit, seals } = harness()
    const all = ['a', 'b', 'c'].map((from) => submit(from))
    await Promise.all(all)
    expect(seals).toEqual([['a', 'b', 'c']])
  })

  it('after blocks from several senders, waits for as many as sent in the last two blocks, and seals when they are in', async () => {
    const { submit, seals } = harness()
    await Promise.all(['a', 'b'].map((from) => submit(from)))
    await Promise.all(['c', 'd'].map((from) => submit(from)))
    // Four senders in the last two blocks: one transaction does not seal yet.
    const first = submit('a')
    await turn()
    await turn()
    expect(seals).toHaveLength(2)
    submit('b')
    submit('c')
    const last = submit('d')
    expect(last).toBe(first)
    expect((await last).senders).toEqual(['a', 'b', 'c', 'd'])
  })

  it('seals what arrived once the wait is over, when the others do not come', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const { submit, seals } = harness()
    await Promise.all(['a', 'b', 'c'].map((from) => submit(from)))
    const lone = submit('a')
    await turn()
    expect(seals).toHaveLength(1)
    vi.advanceTimersByTime(2)
    expect((await lone).senders).toEqual(['a'])
    expect(seals).toEqual([['a', 'b', 'c'], ['a']])
  })
})
