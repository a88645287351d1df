import { type AddressInfo, type Server, connect, createServer } from 'node:net'
import { afterEach, expect, test } from 'vitest'
import { listenOn } from '../../src/server/listenOn.js'

// listenOn (src/server/listenOn.ts) binds an IP address through net.Server's legacy _listen2, anything else
// through listen: either way the server ends up as listen(port, host) leaves it, errors included.

const servers: Server[] = []
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve))
})

/** Starts a server with listenOn; resolves once it listens, rejects with its 'error'. */
function started(port: number, host: string) {
  const server = createServer((socket) => socket.end('hi'))
  servers.push(server)
  return new Promise<Server>((resolve, reject) => {
    server.once('error', reject)
    listenOn(server, port, host, () => resolve(server))
  })
}

const greeting = (port: number, host: string) =>
  new Promise<string>((resolve, reject) => {
    let text = ''
    connect({ port, host })
      .on('data', (chunk) => (text += chunk))
      .on('end', () => resolve(text))
      .on('error', reject)
  })

test('an IP address: listens on the port asked (0: a free one) and accepts connections', async () => {
  const server = await started(0, '127.0.0.1')
  const { address, family, port } = server.address() as AddressInfo
  expect({ address, family }).toEqual({ address: '127.0.0.1', family: 'IPv4' })
  expect(port).toBeGreaterThan(0)
  expect(server.listening).toBe(true)
  expect(await greeting(port, '127.0.0.1')).toBe('hi')
})

test('a host name is looked up as listen does', async () => {
  const server = await started(0, 'localhost')
  const { address, port } = server.address() as AddressInfo
  expect(await greeting(port, address)).toBe('hi')
})

test('a port in use: the same EADDRINUSE error listen emits', async () => {
  const first = await started(0, '127.0.0.1')
  const { port } = first.address() as AddressInfo
  const error = await started(port, '127.0.0.1').catch((e: NodeJS.ErrnoException) => e)
  expect(error).toMatchObject({ code: 'EADDRINUSE', syscall: 'listen', address: '127.0.0.1', port })
})

test('a port out of range throws as listen does, instead of binding a truncated one', () => {
  const server = createServer()
  expect(() => listenOn(server, 65536 + 8545, '127.0.0.1', () => {})).toThrow(expect.objectContaining({ code: 'ERR_SOCKET_BAD_PORT' }))
  expect(server.listening).toBe(false)
})
