import { definePayingTests } from './shared.js'

definePayingTests('a')
