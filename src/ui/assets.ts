import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'

/** The page's three files, as served: `/`, `/ui/app.js`, `/ui/style.css`. */
export type PageFiles = { html: string; script: string; style: string }

/**
 * Where the page's files are, relative to this module: `dist/ui/page/` from
 * dist/ui/assets.js and from the CLI bundle (dist/bundle/cli.cjs, whose
 * `import.meta.url` is the bundle), `src/ui/page/` (its sources) when running
 * from source with tsx or vitest.
 */
const pageDir = new URL('../ui/page/', import.meta.url)

/**
 * Bundles the page's TypeScript (src/ui/page/main.ts and what it imports)
 * into one browser script with esbuild: no framework, no CDN, nothing
 * fetched at run time. scripts/build-ui.mjs calls it at build time and
 * writes dist/ui/page/; from source it runs on the first GET /, so the page
 * served is never older than its sources. esbuild is a devDependency: an
 * installed package serves the prebuilt files and never loads it.
 */
export async function buildPage(sourceDir: URL = pageDir): Promise<PageFiles> {
  const { build } = await import('esbuild')
  const result = await build({
    entryPoints: [fileURLToPath(new URL('main.ts', sourceDir))],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    write: false,
    legalComments: 'none',
    logLevel: 'silent',
  })
  const [html, style] = await Promise.all([
    readFile(new URL('index.html', sourceDir), 'utf8'),
    readFile(new URL('style.css', sourceDir), 'utf8'),
  ])
  return { html, script: result.outputFiles[0]!.text, style }
}

/**
 * The page's files, read once: the built ones beside the code when present
 * (an installed package), else built from the sources (a checkout run from
 * source). Undefined when neither is there (a bundle copied elsewhere): the
 * server then answers GET / with a line saying how to build it.
 */
export async function loadPage(): Promise<PageFiles | undefined> {
  if (existsSync(new URL('app.js', pageDir))) {
    const [html, script, style] = await Promise.all(
      ['index.html', 'app.js', 'style.css'].map((file) => readFile(new URL(file, pageDir), 'utf8')),
    )
    return { html: html!, script: script!, style: style! }
  }
  if (existsSync(new URL('main.ts', pageDir))) return buildPage(pageDir)
  return undefined
}
