/**
 * The two viem functions devnet_checkAuthorization builds its client with,
 * loaded on its first call (checkAuthorization.ts). Imported by name from
 * here rather than as `import('viem')`: a dynamic import of viem's index
 * brings its whole namespace object into the CLI bundle (every export of
 * viem, ~400 KiB of text a start reads, decodes and compiles), where named
 * imports keep only what is used.
 */
export { createClient, custom } from 'viem'
