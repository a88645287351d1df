import type { StaticRoutes } from '../server/http.js'
import { type PageFiles, loadPage } from './assets.js'

/**
 * Only this origin: the page's own script and style, and JSON-RPC over
 * HTTP and WebSocket on the same port. `'self'` covers ws: on the same host
 * and port in current browsers; the explicit ws:/wss: keeps older ones working.
 */
const securityHeaders = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self' ws: wss:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-cache',
}

const notBuilt =
  'devnet: the live page is not built here (dist/ui/page/ is missing): run `npm run build`, or start with --no-ui\n'

/**
 * The live page's routes: `GET /` from a browser (its Accept names
 * text/html), `/ui/app.js` and `/ui/style.css`. The files are read (or, from
 * source, built) on the first request and kept: a devnet nobody opens in a
 * browser never reads them, and nothing here listens to the node.
 */
export function createPageRoutes(load: () => Promise<PageFiles | undefined> = loadPage): StaticRoutes {
  let files: Promise<PageFiles | undefined> | undefined
  const get = () => {
    files ??= load().catch((error: unknown) => {
      files = undefined
      console.error('devnet: cannot build the live page:', error)
      return undefined
    })
    return files
  }
  return async (path, acceptsHtml) => {
    if (path === '/' && !acceptsHtml) return undefined
    const kind = path === '/' ? 'html' : path === '/ui/app.js' ? 'script' : path === '/ui/style.css' ? 'style' : undefined
    if (!kind) return undefined
    const page = await get()
    if (!page) return { status: 503, type: 'text/plain; charset=utf-8', body: notBuilt }
    const type =
      kind === 'html' ? 'text/html; charset=utf-8' : kind === 'script' ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8'
    return { status: 200, type, body: page[kind], headers: securityHeaders }
  }
}
