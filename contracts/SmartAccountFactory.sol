// SPDX-License-Identifier: MIT
pragma solidity ^0.8.37;

import {SmartAccount} from "./SmartAccount.sol";

/**
 * @title SmartAccountFactory
 * @notice Deploys {SmartAccount}s with CREATE2, so an owner's account address
 * is known (and can receive tokens) before it exists:
 * `address = keccak256(0xff ‖ factory ‖ salt ‖ keccak256(initCode))[12:]` with
 * `salt = keccak256(abi.encode(owner, index))` and
 * `initCode = SmartAccount.creationCode ‖ abi.encode(owner, spendPermissionManager)`.
 *
 * @dev The manager is kept in storage, not an immutable, so the runtime code
 * can be placed at any address (devnet predeploys it at genesis).
 */
contract SmartAccountFactory {
  /// @notice The manager every account of this factory trusts.
  address public spendPermissionManager;

  event AccountCreated(address indexed account, address indexed owner, uint256 index);

  constructor(address manager) {
    spendPermissionManager = manager;
  }

  /// @notice Deploys the account of (`owner`, `index`), or returns it if it exists already.
  function createAccount(address owner, uint256 index) external returns (address account) {
    account = getAddress(owner, index);
    if (account.code.length > 0) return account;
    new SmartAccount{salt: _salt(owner, index)}(owner, spendPermissionManager);
    emit AccountCreated(account, owner, index);
  }

  /// @notice The counterfactual address of (`owner`, `index`).
  function getAddress(address owner, uint256 index) public view returns (address) {
    bytes32 initCodeHash = keccak256(
      abi.encodePacked(type(SmartAccount).creationCode, abi.encode(owner, spendPermissionManager))
    );
    return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), _salt(owner, index), initCodeHash)))));
  }

  function _salt(address owner, uint256 index) private pure returns (bytes32) {
    return keccak256(abi.encode(owner, index));
  }
}
