// SPDX-License-Identifier: MIT
pragma solidity ^0.8.37;

import {SignatureChecker} from "./PaymentToken.sol";

/// @dev The call the manager makes on an account: {SmartAccount.execute}.
interface IExecutable {
  function execute(address target, uint256 value, bytes calldata data) external payable returns (bytes memory);
}

/// @dev The ERC-20 transfer the account is made to call.
interface IERC20 {
  function transfer(address to, uint256 value) external returns (bool);
}

/**
 * @title SpendPermissionManager
 * @notice Recurring charges from a smart account, in the shape of Coinbase's
 * SpendPermissionManager: the account's owner signs (EIP-712, checked by the
 * account's ERC-1271) a permission letting `spender` move up to `allowance`
 * of `token` per `period` seconds between `start` and `end`; the spender
 * charges with {spend}; the account revokes with {revoke} (the owner calls it
 * through the account's `execute`), the spender with {revokeAsSpender}.
 *
 * @dev Periods follow `block.timestamp`: period k covers
 * [start + k·period, min(start + (k+1)·period, end)). Only the last period
 * charged is stored, with what was spent in it; a new period starts at zero.
 * No immutables, no constructor state: the code can be placed at any address.
 */
contract SpendPermissionManager {
  struct SpendPermission {
    address account;
    address spender;
    address token;
    uint160 allowance;
    uint48 period;
    uint48 start;
    uint48 end;
    uint256 salt;
  }

  /// @notice The period of a permission and what was spent in it.
  struct PeriodSpend {
    uint48 start;
    uint48 end;
    uint160 spend;
  }

  bytes32 public constant SPEND_PERMISSION_TYPEHASH = keccak256(
    "SpendPermission(address account,address spender,address token,uint160 allowance,uint48 period,uint48 start,uint48 end,uint256 salt)"
  );
  bytes32 private constant EIP712_DOMAIN_TYPEHASH =
    keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
  string private constant NAME = "SpendPermissionManager";
  string private constant VERSION = "1";

  mapping(bytes32 => bool) internal _approved;
  mapping(bytes32 => bool) internal _revoked;
  mapping(bytes32 => PeriodSpend) internal _lastSpend;

  event SpendPermissionApproved(bytes32 indexed hash, address indexed account, address indexed spender);
  event SpendPermissionRevoked(bytes32 indexed hash, address indexed account, address by);
  event SpendPermissionUsed(
    bytes32 indexed hash,
    address indexed account,
    address indexed spender,
    address token,
    uint160 value,
    uint48 periodStart
  );

  /**
   * @notice Approves `permission` with the owner's signature (ERC-1271 on the
   * account), unless revoked. Anyone may submit it; returns whether it is
   * approved afterwards. {spend} does this itself when given the signature.
   */
  function approveWithSignature(SpendPermission calldata permission, bytes calldata signature) public returns (bool) {
    bytes32 hash = getHash(permission);
    if (_revoked[hash]) return false;
    if (_approved[hash]) return true;
    require(permission.period > 0, "SpendPermissionManager: zero period");
    require(permission.start < permission.end, "SpendPermissionManager: empty window");
    require(
      SignatureChecker.isValidSignatureNow(permission.account, hash, signature),
      "SpendPermissionManager: invalid signature"
    );
    _approved[hash] = true;
    emit SpendPermissionApproved(hash, permission.account, permission.spender);
    return true;
  }

  /**
   * @notice Moves `value` of the token from the account to the spender; only
   * the spender may. `signature` approves the permission first when it is
   * not approved yet (pass empty bytes once it is).
   */
  function spend(SpendPermission calldata permission, uint160 value, bytes calldata signature) external {
    require(msg.sender == permission.spender, "SpendPermissionManager: caller is not the spender");
    require(value > 0, "SpendPermissionManager: zero value");
    bytes32 hash = getHash(permission);
    require(!_revoked[hash], "SpendPermissionManager: permission revoked");
    if (!_approved[hash])
      require(approveWithSignature(permission, signature), "SpendPermissionManager: permission not approved");
    PeriodSpend memory current = _currentPeriod(permission, hash);
    uint256 total = uint256(current.spend) + value;
    require(total <= permission.allowance, "SpendPermissionManager: exceeds period allowance");
    _lastSpend[hash] = PeriodSpend(current.start, current.end, uint160(total));
    emit SpendPermissionUsed(hash, permission.account, permission.spender, permission.token, value, current.start);
    bytes memory result = IExecutable(permission.account).execute(
      permission.token, 0, abi.encodeCall(IERC20.transfer, (permission.spender, value))
    );
    require(result.length == 0 || abi.decode(result, (bool)), "SpendPermissionManager: transfer failed");
  }

  /// @notice Revokes for good; only the account itself may (its owner calls through `execute`).
  function revoke(SpendPermission calldata permission) external {
    require(msg.sender == permission.account, "SpendPermissionManager: caller is not the account");
    _revoke(permission);
  }

  /// @notice The spender gives the permission up.
  function revokeAsSpender(SpendPermission calldata permission) external {
    require(msg.sender == permission.spender, "SpendPermissionManager: caller is not the spender");
    _revoke(permission);
  }

  function isApproved(SpendPermission calldata permission) external view returns (bool) {
    return _approved[getHash(permission)];
  }

  function isRevoked(SpendPermission calldata permission) external view returns (bool) {
    return _revoked[getHash(permission)];
  }

  /// @notice The current period (by `block.timestamp`) and what is spent in it; reverts outside [start, end).
  function getCurrentPeriod(SpendPermission calldata permission) external view returns (PeriodSpend memory) {
    return _currentPeriod(permission, getHash(permission));
  }

  /// @notice The EIP-712 digest the owner signs.
  function getHash(SpendPermission calldata p) public view returns (bytes32) {
    bytes32 structHash = keccak256(
      abi.encode(SPEND_PERMISSION_TYPEHASH, p.account, p.spender, p.token, p.allowance, p.period, p.start, p.end, p.salt)
    );
    return keccak256(abi.encodePacked("\x19\x01", DOMAIN_SEPARATOR(), structHash));
  }

  function DOMAIN_SEPARATOR() public view returns (bytes32) {
    return keccak256(
      abi.encode(EIP712_DOMAIN_TYPEHASH, keccak256(bytes(NAME)), keccak256(bytes(VERSION)), block.chainid, address(this))
    );
  }

  /// @notice ERC-5267.
  function eip712Domain()
    external
    view
    returns (
      bytes1 fields,
      string memory name,
      string memory version,
      uint256 chainId,
      address verifyingContract,
      bytes32 salt,
      uint256[] memory extensions
    )
  {
    return (hex"0f", NAME, VERSION, block.chainid, address(this), bytes32(0), new uint256[](0));
  }

  function _revoke(SpendPermission calldata permission) private {
    bytes32 hash = getHash(permission);
    require(!_revoked[hash], "SpendPermissionManager: permission revoked");
    _revoked[hash] = true;
    emit SpendPermissionRevoked(hash, permission.account, msg.sender);
  }

  function _currentPeriod(SpendPermission calldata p, bytes32 hash) private view returns (PeriodSpend memory) {
    require(block.timestamp >= p.start, "SpendPermissionManager: before start");
    require(block.timestamp < p.end, "SpendPermissionManager: after end");
    uint256 start = p.start + ((block.timestamp - p.start) / p.period) * p.period;
    uint256 end = start + p.period;
    if (end > p.end) end = p.end;
    PeriodSpend memory last = _lastSpend[hash];
    uint160 spent = last.start == start && last.end == end ? last.spend : 0;
    return PeriodSpend(uint48(start), uint48(end), spent);
  }
}
