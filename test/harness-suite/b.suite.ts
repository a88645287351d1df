import { definePayingTests } from './shared.js'

definePayingTests('b')
