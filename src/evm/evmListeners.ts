import type { VM } from '@ethereumjs/vm'

/** The EVM events a tracer follows. */
export type EvmListeners = {
  step: (...args: never[]) => unknown
  beforeMessage: (...args: never[]) => unknown
  afterMessage: (...args: never[]) => unknown
}

/**
 * Attaches and detaches a tracer's listeners on a VM's EVM events as one
 * unit, so a tracer never stays attached to a VM it no longer traces.
 */
export function evmListeners(vm: VM, listeners: EvmListeners) {
  const names = Object.keys(listeners) as (keyof EvmListeners)[]
  return {
    attach() {
      for (const name of names) vm.evm.events!.on(name, listeners[name] as never)
    },
    detach() {
      for (const name of names) vm.evm.events!.off(name, listeners[name] as never)
    },
  }
}
