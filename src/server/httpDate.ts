const weekdays = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat']
const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
const two = (n: number) => (n < 10 ? `0${n}` : `${n}`)

/**
 * An HTTP Date header's value (RFC 9110 IMF-fixdate, `Sun, 06 Nov 1994
 * 08:49:37 GMT`) for `ms` since the epoch: what `toUTCString()` gives for
 * years 1000 to 9999, put together from the getUTC* fields.
 *
 * Why not toUTCString: its first call in a process reads the time zone
 * (/etc/localtime and ICU's data), ~1 ms of CPU of a cold start, and it
 * comes with the first answer a starting devnet writes.
 */
export function httpDate(ms: number): string {
  const d = new Date(ms)
  return `${weekdays[d.getUTCDay()]}, ${two(d.getUTCDate())} ${months[d.getUTCMonth()]} ${d.getUTCFullYear()} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} GMT`
}
