// SPDX-License-Identifier: MIT
pragma solidity ^0.8.37;

/**
 * @title SmartAccount
 * @notice A minimal smart account: one EOA owner, whose ECDSA signature over
 * a digest is valid for the account (ERC-1271), and an `execute` that the
 * owner, or the one spend-permission manager named at creation, may call.
 * The manager is trusted the way Coinbase Smart Wallet trusts its
 * SpendPermissionManager (as an owner): its code only ever makes the account
 * transfer tokens under a permission the owner signed.
 *
 * @dev Deployed by {SmartAccountFactory} with CREATE2, so its address is known
 * before it exists. Signatures are checked over the digest as given, with no
 * account-specific wrapping: a signature of the owner is valid for every
 * account that owner has, so typed data it signs must name the account (a
 * spend permission does).
 */
contract SmartAccount {
  bytes4 private constant MAGIC = 0x1626ba7e;
  /// @dev secp256k1n / 2 (EIP-2).
  uint256 private constant HALF_N = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

  /// @notice The EOA whose signatures the account accepts and who may call {execute}.
  address public owner;
  /// @notice The spend-permission manager allowed to call {execute}.
  address public spendPermissionManager;

  constructor(address initialOwner, address manager) {
    require(initialOwner != address(0), "SmartAccount: owner is the zero address");
    owner = initialOwner;
    spendPermissionManager = manager;
  }

  receive() external payable {}

  /// @notice ERC-1271: the magic value iff `signature` (r ‖ s ‖ v, low s) recovers to `owner`.
  function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
    // Malformed is "not valid" rather than a revert, as ERC-1271 wallets usually answer.
    if (signature.length != 65) return 0xffffffff;
    bytes32 r = bytes32(signature[0:32]);
    bytes32 s = bytes32(signature[32:64]);
    uint8 v = uint8(signature[64]);
    if (uint256(s) > HALF_N) return 0xffffffff;
    address signer = ecrecover(hash, v, r, s);
    return signer != address(0) && signer == owner ? MAGIC : bytes4(0xffffffff);
  }

  /// @notice Calls `target` with `data` and `value` as the account; bubbles a revert up unchanged.
  function execute(address target, uint256 value, bytes calldata data) external payable returns (bytes memory) {
    require(
      msg.sender == owner || msg.sender == spendPermissionManager,
      "SmartAccount: caller is not the owner or the manager"
    );
    (bool success, bytes memory result) = target.call{value: value}(data);
    if (!success) {
      assembly ("memory-safe") {
        revert(add(result, 0x20), mload(result))
      }
    }
    return result;
  }
}
