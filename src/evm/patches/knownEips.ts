/**
 * The EIPs @ethereumjs/common 10.1.3 knows (its `eipsDict`, and EIP-7892, which
 * its hardfork table lists without an entry there), which the engine
 * patches were written against: every guard that leaves an EIP's branch to
 * the library (EIP-6800/7864 witnesses, EIP-7928 access lists, EIP-8037/8038
 * state gas, EIP-2780, EIP-3540 EOF, ...) chose from this list. A chain that
 * activates an EIP outside it fails at start (registry.ts, assertKnownEips)
 * rather than running fast paths that never heard of it.
 */
export const knownEips: ReadonlySet<number> = new Set([
  1, 606, 607, 608, 609, 1013, 1153, 1559, 1679, 1716, 2384, 2537, 2565, 2718, 2780, 2929, 2930, 2935, 3198, 3529, 3540,
  3541, 3554, 3607, 3651, 3670, 3675, 3855, 3860, 4200, 4345, 4399, 4750, 4788, 4844, 4895, 5133, 5450, 5656, 6110, 6206,
  6780, 7002, 7069, 7251, 7480, 7516, 7594, 7620, 7623, 7685, 7691, 7692, 7698, 7702, 7708, 7709, 7778, 7823, 7825, 7843,
  7864, 7892, 7883, 7918, 7928, 7934, 7939, 7951, 7954, 7976, 7981, 7997, 8024, 8037, 8038, 8246, 8282,
])
