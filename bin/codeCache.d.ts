/** The V8 code cache file for the CLI bundle at `file` (its bytes `bundle`) under the running Node. */
export function codeCacheFile(file: string, bundle: Uint8Array): string
/** Runs the CLI bundle at `file` with the code cache beside it, when there is one for this Node. */
export function runWithCodeCache(file: string): void
/** How the build begins each bundle's text: Node's CommonJS wrapper, written into the file. */
export const scriptHead: string
/** How the build ends each bundle's text. */
export const scriptTail: string
/** Compiles the CLI bundle at `file` with its code cache, both read off the main thread; resolves with the function that runs it. */
export function compileWithCodeCacheLater(file: string): Promise<() => unknown>
