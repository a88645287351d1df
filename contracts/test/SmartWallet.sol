// SPDX-License-Identifier: MIT
pragma solidity ^0.8.37;

/**
 * @title SmartWallet
 * @notice A minimal ERC-1271 wallet for tests: one EOA owner, whose ECDSA
 * signature over the digest (no extra wrapping) is valid for the wallet, and
 * an `execute` that lets the owner make the wallet call anything. It stands in
 * for smart-account payers in the EIP-3009 / EIP-2612 tests.
 */
contract SmartWallet {
  bytes4 private constant MAGIC = 0x1626ba7e;

  /// @notice The EOA whose signatures the wallet accepts.
  address public owner;

  constructor(address initialOwner) {
    owner = initialOwner;
  }

  receive() external payable {}

  /// @notice ERC-1271: returns the magic value iff `signature` (r ‖ s ‖ v) recovers to `owner`.
  function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
    // Anything malformed is "not valid" rather than a revert, as ERC-1271 wallets usually answer.
    if (signature.length != 65) return 0xffffffff;
    bytes32 r = bytes32(signature[0:32]);
    bytes32 s = bytes32(signature[32:64]);
    uint8 v = uint8(signature[64]);
    address signer = ecrecover(hash, v, r, s);
    return signer != address(0) && signer == owner ? MAGIC : bytes4(0xffffffff);
  }

  /// @notice Calls `target` with `data` and `value` as the wallet; bubbles up a revert unchanged.
  function execute(address target, uint256 value, bytes calldata data) external payable returns (bytes memory) {
    require(msg.sender == owner, "SmartWallet: caller is not the owner");
    (bool success, bytes memory result) = target.call{value: value}(data);
    if (!success) {
      assembly ("memory-safe") {
        revert(add(result, 0x20), mload(result))
      }
    }
    return result;
  }
}
