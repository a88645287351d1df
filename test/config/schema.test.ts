import { readFileSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import { loadConfig } from '../../src/config/layers.js'
import { knownKeys } from '../../src/config/load.js'
import { presets } from '../../src/config/schema.js'
import { supportedHardforks } from '../../src/evm/common.js'

const read = (file: string) => JSON.parse(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8'))
const schema = read('devnet.config.schema.json')
const pkg = read('package.json')

type Node = { properties?: Record<string, Node>; oneOf?: Node[]; $ref?: string; enum?: unknown[]; additionalProperties?: boolean }
const objectIn = (node: Node) => (node.properties ? node : node.oneOf?.find((n) => n.properties))!

describe('devnet.config.schema.json', () => {
  test('lists exactly the keys the loader reads, and refuses others', () => {
    expect(Object.keys(schema.properties).sort()).toEqual([...knownKeys.top].sort())
    expect(schema.additionalProperties).toBe(false)
    for (const nested of ['mining', 'token', 'logs', 'simulate'] as const) {
      const object = objectIn(schema.properties[nested])
      expect(Object.keys(object.properties!).sort(), nested).toEqual([...knownKeys[nested]].sort())
      expect(object.additionalProperties, nested).toBe(false)
    }
  })

  test('its choices are the code’s: hardforks, presets, mining modes, clocks', () => {
    expect(schema.properties.hardfork.enum).toEqual([...supportedHardforks])
    expect(schema.properties.preset.enum).toEqual(Object.keys(presets))
    expect(schema.properties.mining.oneOf[0].enum).toEqual(['interval', 'auto', 'manual'])
    expect(schema.properties.clock.enum).toEqual(['wall', 'virtual'])
  })

  test('every $ref resolves', () => {
    const refs = JSON.stringify(schema).match(/"\$ref":"[^"]+"/g) ?? []
    for (const ref of refs) expect(schema.definitions[ref.split('/').pop()!.replace('"', '')], ref).toBeDefined()
  })

  test('the shipped devnet.config.json points at it, and changes nothing', () => {
    const shipped = read('devnet.config.json')
    expect(shipped.$schema).toBe('./devnet.config.schema.json')
    expect(Object.keys(shipped).every((key) => key in schema.properties)).toBe(true)
    const now = { ...loadConfig({ clock: 'virtual' }) }
    expect({ ...loadConfig(shipped, { clock: 'virtual' }) }).toEqual(now)
    expect(pkg.exports['./devnet.config.schema.json']).toBe('./devnet.config.schema.json')
  })
})
