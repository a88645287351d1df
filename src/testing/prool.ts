import { EventEmitter } from 'node:events'
import { type DevnetOptions, type StartedDevnet, startDevnet } from '../index.js'

/** What a devnet instance emits, as prool instances do. */
type InstanceEvents = {
  exit: [code: number | null, signal: NodeJS.Signals | null]
  listening: []
  message: [message: string]
  stderr: [message: string]
  stdout: [message: string]
}

type Status = 'idle' | 'stopped' | 'starting' | 'started' | 'stopping'

/** Options of prool's instances: messages kept in memory, and a start/stop time limit. */
export type InstanceOptions = { messageBuffer?: number | undefined; timeout?: number | undefined }

/**
 * A devnet as a prool `Instance` (wevm/prool's shape, without depending on
 * prool): `name`, `host`, `port`, `status`, `messages`, `start()` resolving
 * with a stop function, `stop()`, `create({ port })` and the event methods.
 * So a suite that pools Anvil instances (`createServer({ instance: anvil() })`,
 * `createPool`) can pool devnets the same way. The devnet runs in this
 * process; `_internal.devnet` gives the running one.
 */
export type DevnetInstance = Pick<
  EventEmitter<InstanceEvents>,
  'addListener' | 'off' | 'on' | 'once' | 'removeAllListeners' | 'removeListener'
> & {
  _internal: { readonly devnet: StartedDevnet | undefined }
  name: string
  host: string
  /** The configured port; the bound port once started on port 0. */
  readonly port: number
  readonly status: Status
  messages: { clear(): void; get(): string[] }
  create(parameters?: { port?: number | undefined }): DevnetInstance
  start(): Promise<() => void>
  stop(): Promise<void>
}

/** Defines a devnet instance; `parameters` are createDevnet/startDevnet options (test defaults are not applied). */
export function devnetInstance(parameters: DevnetOptions = {}, options: InstanceOptions = {}): DevnetInstance {
  const { messageBuffer = 20, timeout = 10_000 } = options
  const host = parameters.host ?? '127.0.0.1'
  const configuredPort = parameters.port ?? 0
  const emitter = new EventEmitter<InstanceEvents>()
  let messages: string[] = []
  let status: Status = 'idle'
  let devnet: StartedDevnet | undefined
  let starting: Promise<() => void> | undefined
  let stopping: Promise<void> | undefined

  emitter.on('message', (message) => {
    messages.push(message)
    if (messages.length > messageBuffer) messages.shift()
  })

  const withTimeout = <T>(what: string, promise: Promise<T>) =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`Instance "devnet" failed to ${what} in time.`)), timeout)
      timer.unref()
      promise.then(
        (value) => (clearTimeout(timer), resolve(value)),
        (error) => (clearTimeout(timer), reject(error)),
      )
    })

  const instance: DevnetInstance = {
    _internal: {
      get devnet() {
        return devnet
      },
    },
    name: 'devnet',
    host,
    get port() {
      return devnet?.port ?? configuredPort
    },
    get status() {
      return status
    },
    messages: {
      clear: () => void (messages = []),
      get: () => messages,
    },
    create: (next = {}) => devnetInstance({ ...parameters, ...(next.port !== undefined ? { port: next.port } : {}) }, options),
    start() {
      if (status === 'starting') return starting!
      if (status !== 'idle' && status !== 'stopped')
        return Promise.reject(new Error(`Instance "devnet" is not in an idle or stopped state. Status: ${status}`))
      status = 'starting'
      starting = withTimeout('start', startDevnet({ ...parameters, host, port: configuredPort })).then(
        (started) => {
          devnet = started
          status = 'started'
          emitter.emit('message', `devnet listening on ${started.url}`)
          emitter.emit('listening')
          return () => void instance.stop()
        },
        (error: Error) => {
          status = 'idle'
          emitter.emit('stderr', error.message)
          throw error
        },
      )
      return starting
    },
    stop() {
      if (status === 'stopping') return stopping!
      if (status !== 'started')
        return Promise.reject(new Error(`Instance "devnet" has not started. Status: ${status}`))
      status = 'stopping'
      stopping = withTimeout('stop', devnet!.close()).then(
        () => {
          devnet = undefined
          status = 'stopped'
          messages = []
          emitter.emit('exit', 0, null)
        },
        (error) => {
          status = 'started'
          throw error
        },
      )
      return stopping
    },
    addListener: emitter.addListener.bind(emitter),
    off: emitter.off.bind(emitter),
    on: emitter.on.bind(emitter),
    once: emitter.once.bind(emitter),
    removeListener: emitter.removeListener.bind(emitter),
    removeAllListeners: emitter.removeAllListeners.bind(emitter),
  }
  return instance
}
