// Preload for bench/frontCpu.ts (`node -r ./bench/firstAnswerHook.cjs bin/devnet.js start ...`): writes to stderr,
// once, a line `FIRST_ANSWER {...}` with the process's CPU time (all threads, process.cpuUsage: exact, unlike
// /proc's tick-updated figures read while the process runs) and its wall time since the time origin at three points:
// when this preload runs (Node's own start is done), when a net.Server starts listening, and when the first write
// goes to a connection a server accepted (the first answer). Through diagnostics_channel only, so it loads nothing a
// start would not (node:diagnostics_channel comes with node:net), and works whatever binds the socket (listen or
// _listen2, src/server/listenOn.ts) and writes the answer.
'use strict'
const dc = require('node:diagnostics_channel')
const { writeSync } = require('node:fs')

const at = () => {
  const { user, system } = process.cpuUsage()
  return { wallMs: performance.now(), cpuMs: (user + system) / 1000 }
}
const marks = { preload: at() }
dc.tracingChannel('net.server.listen').subscribe({
  start() {},
  end() {},
  asyncStart() {},
  error() {},
  asyncEnd() {
    marks.listening ??= at()
  },
})
dc.channel('net.server.socket').subscribe(({ socket }) => {
  const write = socket.write
  socket.write = function (...args) {
    if (!marks.answer) {
      marks.answer = at()
      writeSync(2, `FIRST_ANSWER ${JSON.stringify(marks)}\n`)
    }
    return write.apply(this, args)
  }
})
