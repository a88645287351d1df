import type { Address } from 'viem'

/**
 * Where the dev genesis places the payment-path contracts (beside the token
 * at 0x3009…3009), so the library, the examples and a user's scripts find
 * them without a deployment. The numbers name the standards they serve:
 * EIP-2612 checkout, ERC-1271 accounts, ERC-7715-style permissions.
 * An imported (geth) chain has none of them.
 */
export const predeployAddresses = {
  /** contracts/PermitCheckout.sol */
  permitCheckout: '0x2612261226122612261226122612261226122612',
  /** contracts/SmartAccountFactory.sol; deploys contracts/SmartAccount.sol with CREATE2. */
  smartAccountFactory: '0x1271127112711271127112711271127112711271',
  /** contracts/SpendPermissionManager.sol */
  spendPermissionManager: '0x7715771577157715771577157715771577157715',
} as const satisfies Record<string, Address>
