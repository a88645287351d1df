import { describe, expect, test } from 'vitest'
import { INTERRUPT_BUDGET, tieringSettings } from '../../src/cli/tiering.js'

const budget = (env: NodeJS.ProcessEnv, argv: string[] = []) => tieringSettings(env, argv).interruptBudget

describe('the CLI tiering settings', () => {
  test('set by default; a node flag of its own (argv or NODE_OPTIONS, either spelling) or 0 leaves V8 to choose', () => {
    expect(budget({})).toBe(INTERRUPT_BUDGET)
    expect(budget({ DEVNET_INTERRUPT_BUDGET: '' })).toBe(INTERRUPT_BUDGET)
    expect(budget({ DEVNET_INTERRUPT_BUDGET: '100000' })).toBe(100000)
    expect(budget({ DEVNET_INTERRUPT_BUDGET: '0' })).toBeUndefined()
    expect(budget({}, ['--interrupt-budget=1000'])).toBeUndefined()
    expect(budget({ NODE_OPTIONS: '--max-old-space-size=512 --interrupt_budget=1000' })).toBeUndefined()
    // A flag that merely starts alike decides nothing.
    expect(budget({}, ['--interrupt-budget-for-feedback-allocation=100'])).toBe(INTERRUPT_BUDGET)
  })

  test('not set in the build run that makes the code cache (every start would refuse a cache made under other flags)', () => {
    expect(budget({ DEVNET_CODE_CACHE_WRITE: '1' })).toBeUndefined()
  })

  test('a bad value is refused by name', () => {
    for (const bad of ['-5', '1.5', 'lots']) expect(() => budget({ DEVNET_INTERRUPT_BUDGET: bad })).toThrow(/DEVNET_INTERRUPT_BUDGET/)
  })
})
