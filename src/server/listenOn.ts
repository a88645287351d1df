import { type Server, isIP } from 'node:net'

/** net.Server's legacy alias for binding and listening (Node's lib/net.js: `Server.prototype._listen2 = setupListenHandle`). */
type LegacyListen = (address: string, port: number, addressType: number, backlog: number | undefined, fd: number | undefined, flags: number) => void

/**
 * Starts `server` listening on host:port: `server.listen(port, host,
 * onListening)`, and the same steps taken directly when the host is an IP
 * address and this process is no cluster worker.
 *
 * Why: Node 20's `listen` with a host loads node:dns to look the host up
 * (even an IP address, which the lookup hands back as it is) and node:cluster
 * (with child_process and dgram) to ask whether the process is a cluster
 * worker, whatever the options: ~3 ms of CPU of a cold start before the
 * socket listens. For a process that is not a worker (cluster's own test:
 * NODE_UNIQUE_ID unset), `listen` ends in `_listen2(ip, port, family,
 * backlog, fd, flags)`, the legacy alias Node keeps for code that wraps it;
 * it binds, listens and emits 'listening' (or 'error') on the next tick, as
 * `listen` does. A host name, a port out of range, a worker, or a Node
 * without the alias takes `listen` itself.
 */
export function listenOn(server: Server, port: number, host: string, onListening: () => void): void {
  const family = isIP(host)
  const legacyListen = (server as Server & { _listen2?: LegacyListen })._listen2
  // A port out of range goes to listen, which throws as it should (the legacy alias would truncate it).
  const direct = family !== 0 && Number.isInteger(port) && port >= 0 && port <= 0xffff
  if (!direct || typeof legacyListen !== 'function' || process.env.NODE_UNIQUE_ID !== undefined) {
    server.listen(port, host, onListening)
    return
  }
  server.once('listening', onListening)
  // Default backlog (511), no fd, no flags (ipv6Only unset): what listen(port, host) passes.
  legacyListen.call(server, host, port, family, undefined, undefined, 0)
}
