import {
  type Account,
  type Address,
  type Hex,
  type Transport,
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { getChainId } from 'viem/actions'
import { parseRequest, v1Networks } from './parse.js'
import { type SettleWaitFor, settleExact } from './settle.js'
import type { SettleResponse, SupportedResponse, VerifyResponse } from './types.js'
import { verifyExact } from './verify.js'

export declare namespace createFacilitator {
  type Options = {
    /** The devnet's JSON-RPC URL; or give `transport`. */
    rpcUrl?: string | undefined
    /** Any viem transport to the chain (e.g. `custom(devnet)` in-process). */
    transport?: Transport | undefined
    /** Sends the settlements and pays their gas: a viem account or a private key. */
    account: Account | Hex
    /** Answer `/settle` on the pre-confirmed receipt or the sealed one. @default 'preconfirmed' */
    waitFor?: SettleWaitFor | undefined
    /** Seconds an authorization must outlive the pending block's time. @default 6 */
    validityMargin?: number | undefined
    /** Receipt polling, ms. @default 25 */
    pollingInterval?: number | undefined
    /** Milliseconds to wait for a settlement's receipt. @default 60_000 */
    timeout?: number | undefined
  }
}

/** An x402 facilitator bound to one chain and one settling account. */
export type Facilitator = {
  /** The account that settles. */
  address: Address
  chainId: number
  /** CAIP-2, e.g. `eip155:84532`. */
  network: string
  supported(): SupportedResponse
  /** `POST /verify`: the body as the x402 `HTTPFacilitatorClient` sends it. */
  verify(body: unknown): Promise<VerifyResponse>
  /** `POST /settle`; `waitFor` overrides the facilitator's default for this call. */
  settle(body: unknown, options?: { waitFor?: SettleWaitFor | undefined }): Promise<SettleResponse>
}

/**
 * Creates an x402 facilitator for the `exact` scheme on EVM (EIP-3009
 * `transferWithAuthorization`) that talks to the chain over JSON-RPC only:
 * verification reads `pending`, settlement sends from `account`. Serve it
 * over HTTP with {@link startFacilitator}, or call it directly.
 *
 * @example
 * const facilitator = await createFacilitator({ rpcUrl: devnet.url, account: devnet.accounts[9].privateKey })
 * await facilitator.verify({ x402Version: 2, paymentPayload, paymentRequirements })
 */
export async function createFacilitator(options: createFacilitator.Options): Promise<Facilitator> {
  const transport = options.transport ?? http(options.rpcUrl ?? 'http://127.0.0.1:8545', { batch: true })
  const account = typeof options.account === 'string' ? privateKeyToAccount(options.account) : options.account
  const pollingInterval = options.pollingInterval ?? 25
  const probe = createPublicClient({ transport })
  const chainId = await getChainId(probe)
  const chain = defineChain({
    id: chainId,
    name: `eip155:${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: options.rpcUrl ? [options.rpcUrl] : [] } },
  })
  const client = createPublicClient({ chain, transport, pollingInterval })
  const wallet = createWalletClient({ chain, transport, account, pollingInterval })
  const network = `eip155:${chainId}`
  const domains = new Map()
  const inFlight = new Set<string>()
  // One submission at a time: the nonce comes from `pending`, which counts
  // the pool, so each send sees the one before it.
  let queue: Promise<unknown> = Promise.resolve()
  const submit = <T>(send: () => Promise<T>): Promise<T> => {
    const run = queue.then(send, send)
    queue = run.catch(() => undefined)
    return run
  }
  const shared = { client, chainId, domains, validityMargin: options.validityMargin }

  return {
    address: account.address,
    chainId,
    network,
    supported: () => ({
      kinds: [
        { x402Version: 2, scheme: 'exact', network },
        ...Object.entries(v1Networks)
          .filter(([, id]) => id === chainId)
          .map(([name]) => ({ x402Version: 1, scheme: 'exact', network: name })),
      ],
      extensions: [],
      signers: { 'eip155:*': [account.address] },
    }),
    async verify(body) {
      const { response } = await verifyExact({ ...shared, request: parseRequest(body), submitter: account.address })
      return response
    },
    settle: (body, call = {}) =>
      settleExact({
        ...shared,
        request: parseRequest(body),
        wallet,
        submit,
        inFlight,
        waitFor: call.waitFor ?? options.waitFor,
        pollingInterval,
        timeout: options.timeout,
      }),
  }
}
