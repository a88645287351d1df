// SPDX-License-Identifier: MIT
pragma solidity ^0.8.37;

/**
 * @title ECRecover
 * @notice Strict ECDSA recovery with the checks and messages of Circle's
 * FiatToken `ECRecover` library: 65-byte packed signatures only, low `s`
 * (EIP-2), `v` in {27, 28} (0/1 parity is rejected), and no zero signer.
 */
library ECRecover {
  /// @dev secp256k1n / 2: signatures with a larger `s` are malleable (EIP-2).
  uint256 private constant HALF_N =
    0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

  function recover(bytes32 digest, uint8 v, bytes32 r, bytes32 s) internal pure returns (address) {
    if (uint256(s) > HALF_N) revert("ECRecover: invalid signature 's' value");
    if (v != 27 && v != 28) revert("ECRecover: invalid signature 'v' value");
    address signer = ecrecover(digest, v, r, s);
    require(signer != address(0), "ECRecover: invalid signature");
    return signer;
  }

  function recover(bytes32 digest, bytes memory signature) internal pure returns (address) {
    require(signature.length == 65, "ECRecover: invalid signature length");
    bytes32 r;
    bytes32 s;
    uint8 v;
    // Packed layout r ‖ s ‖ v, as produced by eth_signTypedData_v4.
    assembly ("memory-safe") {
      r := mload(add(signature, 0x20))
      s := mload(add(signature, 0x40))
      v := byte(0, mload(add(signature, 0x60)))
    }
    return recover(digest, v, r, s);
  }
}

/**
 * @title SignatureChecker
 * @notice EOA signers are checked with {ECRecover}; signers with code are asked
 * through ERC-1271 `isValidSignature(bytes32,bytes)`. Internal (inlined) here,
 * so the token needs no library linking, unlike Circle's external library.
 */
library SignatureChecker {
  bytes4 private constant ERC1271_MAGIC = 0x1626ba7e;

  function isValidSignatureNow(address signer, bytes32 digest, bytes memory signature)
    internal
    view
    returns (bool)
  {
    if (signer.code.length == 0) return ECRecover.recover(digest, signature) == signer;
    (bool success, bytes memory result) = signer.staticcall(
      abi.encodeWithSelector(ERC1271_MAGIC, digest, signature)
    );
    return success && result.length >= 32 && abi.decode(result, (bytes32)) == bytes32(ERC1271_MAGIC);
  }
}

/// @dev The part of ERC-20 {PaymentToken.rescueERC20} needs.
interface IERC20Transfer {
  function transfer(address to, uint256 value) external returns (bool);
}

/**
 * @title PaymentToken
 * @notice A USDC-like (FiatTokenV2_2 behaviour) stablecoin for a devnet: ERC-20
 * with 6 decimals, EIP-3009 transfer/receive/cancel with authorization,
 * EIP-2612 permit, ERC-1271 signers, pause, blacklist, minters and rescuer.
 * Revert strings and check order follow Circle's FiatToken so that clients that
 * parse them (x402 facilitators, tests written against USDC) see the same thing.
 *
 * @dev There is no proxy: the constructor plays `initialize` … `initializeV2_2`.
 * The storage layout mirrors FiatTokenV2_2 behind its proxy slot for slot (e.g.
 * `balanceAndBlacklistStates` at slot 9), so balance-setting cheats and tools
 * that know USDC's layout work unchanged. No immutables: the EIP-712 domain is
 * built at call time from `block.chainid` and `address(this)`, so the runtime
 * code can be placed at any address on any chain.
 */
contract PaymentToken {
  // Storage: declared in FiatTokenV2_2's order; do not reorder.

  /// @dev Slot 0 (Ownable).
  address private _owner;
  /// @notice Slot 1 (Pausable): the pauser, packed with `paused`.
  address public pauser;
  /// @notice Whether transfers, approvals, mints, burns and authorizations are halted.
  bool public paused;
  /// @notice Slot 2 (Blacklistable).
  address public blacklister;
  /// @dev Slot 3: V1's blacklist mapping, superseded by bit 255 of the balance word. Kept for layout.
  mapping(address => bool) internal _deprecatedBlacklisted;
  /// @notice Slot 4.
  string public name;
  /// @notice Slot 5.
  string public symbol;
  /// @notice Slot 6.
  uint8 public decimals;
  /// @notice Slot 7.
  string public currency;
  /// @notice Slot 8, packed with `_initialized`.
  address public masterMinter;
  bool internal _initialized;
  /// @dev Slot 9: bit 255 = blacklisted, bits 0..254 = balance (V2_2 packing).
  mapping(address => uint256) internal balanceAndBlacklistStates;
  /// @dev Slot 10.
  mapping(address => mapping(address => uint256)) internal allowed;
  /// @dev Slot 11.
  uint256 internal totalSupply_;
  /// @dev Slot 12.
  mapping(address => bool) internal minters;
  /// @dev Slot 13.
  mapping(address => uint256) internal minterAllowed;
  /// @dev Slot 14 (Rescuable).
  address private _rescuer;
  /// @dev Slot 15: V2's cached domain separator; V2_2 recomputes it, kept for layout.
  bytes32 internal _deprecatedCachedDomainSeparator;
  /// @dev Slot 16 (EIP3009): authorizer => nonce => used or canceled.
  mapping(address => mapping(bytes32 => bool)) internal _authorizationStates;
  /// @dev Slot 17 (EIP2612).
  mapping(address => uint256) internal _permitNonces;
  /// @dev Slot 18.
  uint8 internal _initializedVersion;

  bytes32 public constant TRANSFER_WITH_AUTHORIZATION_TYPEHASH =
    keccak256(
      "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );
  bytes32 public constant RECEIVE_WITH_AUTHORIZATION_TYPEHASH =
    keccak256(
      "ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );
  bytes32 public constant CANCEL_AUTHORIZATION_TYPEHASH =
    keccak256("CancelAuthorization(address authorizer,bytes32 nonce)");
  bytes32 public constant PERMIT_TYPEHASH =
    keccak256("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)");
  bytes32 private constant EIP712_DOMAIN_TYPEHASH =
    keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
  uint256 private constant BLACKLIST_BIT = 1 << 255;
  uint256 private constant BALANCE_MASK = (1 << 255) - 1;

  event Transfer(address indexed from, address indexed to, uint256 value);
  event Approval(address indexed owner, address indexed spender, uint256 value);
  event Mint(address indexed minter, address indexed to, uint256 amount);
  event Burn(address indexed burner, uint256 amount);
  event MinterConfigured(address indexed minter, uint256 minterAllowedAmount);
  event MinterRemoved(address indexed oldMinter);
  event MasterMinterChanged(address indexed newMasterMinter);
  /// @dev Not indexed, as in FiatToken's Ownable.
  event OwnershipTransferred(address previousOwner, address newOwner);
  event Pause();
  event Unpause();
  event PauserChanged(address indexed newAddress);
  event Blacklisted(address indexed _account);
  event UnBlacklisted(address indexed _account);
  event BlacklisterChanged(address indexed newBlacklister);
  event RescuerChanged(address indexed newRescuer);
  event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce);
  event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce);

  constructor(
    string memory tokenName,
    string memory tokenSymbol,
    string memory tokenCurrency,
    uint8 tokenDecimals,
    address newMasterMinter,
    address newPauser,
    address newBlacklister,
    address newOwner
  ) {
    require(newMasterMinter != address(0), "FiatToken: new masterMinter is the zero address");
    require(newPauser != address(0), "FiatToken: new pauser is the zero address");
    require(newBlacklister != address(0), "FiatToken: new blacklister is the zero address");
    require(newOwner != address(0), "FiatToken: new owner is the zero address");
    name = tokenName;
    symbol = tokenSymbol;
    currency = tokenCurrency;
    decimals = tokenDecimals;
    masterMinter = newMasterMinter;
    pauser = newPauser;
    blacklister = newBlacklister;
    _owner = newOwner;
    _initialized = true;
    // FiatTokenV2_2 ends initialisation at version 3 (initializeV2_2).
    _initializedVersion = 3;
  }

  modifier onlyOwner() {
    require(msg.sender == _owner, "Ownable: caller is not the owner");
    _;
  }

  modifier whenNotPaused() {
    require(!paused, "Pausable: paused");
    _;
  }

  modifier onlyPauser() {
    require(msg.sender == pauser, "Pausable: caller is not the pauser");
    _;
  }

  modifier onlyBlacklister() {
    require(msg.sender == blacklister, "Blacklistable: caller is not the blacklister");
    _;
  }

  modifier notBlacklisted(address account) {
    require(!_isBlacklisted(account), "Blacklistable: account is blacklisted");
    _;
  }

  modifier onlyMinters() {
    require(minters[msg.sender], "FiatToken: caller is not a minter");
    _;
  }

  modifier onlyMasterMinter() {
    require(msg.sender == masterMinter, "FiatToken: caller is not the masterMinter");
    _;
  }

  modifier onlyRescuer() {
    require(msg.sender == _rescuer, "Rescuable: caller is not the rescuer");
    _;
  }

  // ERC-20

  function totalSupply() external view returns (uint256) {
    return totalSupply_;
  }

  function balanceOf(address account) external view returns (uint256) {
    return _balanceOf(account);
  }

  function allowance(address owner, address spender) external view returns (uint256) {
    return allowed[owner][spender];
  }

  function transfer(address to, uint256 value)
    external
    whenNotPaused
    notBlacklisted(msg.sender)
    notBlacklisted(to)
    returns (bool)
  {
    _transfer(msg.sender, to, value);
    return true;
  }

  /// @dev Like FiatToken, an allowance of 2^256-1 is decremented too (it is not "infinite").
  function transferFrom(address from, address to, uint256 value)
    external
    whenNotPaused
    notBlacklisted(msg.sender)
    notBlacklisted(from)
    notBlacklisted(to)
    returns (bool)
  {
    require(value <= allowed[from][msg.sender], "ERC20: transfer amount exceeds allowance");
    _transfer(from, to, value);
    allowed[from][msg.sender] -= value;
    return true;
  }

  /// @dev V2_2 dropped the blacklist checks from approvals; only pause applies.
  function approve(address spender, uint256 value) external whenNotPaused returns (bool) {
    _approve(msg.sender, spender, value);
    return true;
  }

  function increaseAllowance(address spender, uint256 increment) external whenNotPaused returns (bool) {
    _approve(msg.sender, spender, _add(allowed[msg.sender][spender], increment));
    return true;
  }

  function decreaseAllowance(address spender, uint256 decrement) external whenNotPaused returns (bool) {
    uint256 current = allowed[msg.sender][spender];
    require(decrement <= current, "ERC20: decreased allowance below zero");
    _approve(msg.sender, spender, current - decrement);
    return true;
  }

  // EIP-712, EIP-3009, EIP-2612

  /// @notice FiatTokenV2_1+ reports version "2"; it is the EIP-712 domain version.
  function version() external pure returns (string memory) {
    return "2";
  }

  /// @notice Recomputed on every call (V2_2), so it follows the chain id and the deployment address.
  function DOMAIN_SEPARATOR() external view returns (bytes32) {
    return _domainSeparator();
  }

  function authorizationState(address authorizer, bytes32 nonce) external view returns (bool) {
    return _authorizationStates[authorizer][nonce];
  }

  function nonces(address owner) external view returns (uint256) {
    return _permitNonces[owner];
  }

  function transferWithAuthorization(
    address from,
    address to,
    uint256 value,
    uint256 validAfter,
    uint256 validBefore,
    bytes32 nonce,
    uint8 v,
    bytes32 r,
    bytes32 s
  ) external whenNotPaused notBlacklisted(from) notBlacklisted(to) {
    _transferWithAuthorization(
      TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, abi.encodePacked(r, s, v)
    );
  }

  function transferWithAuthorization(
    address from,
    address to,
    uint256 value,
    uint256 validAfter,
    uint256 validBefore,
    bytes32 nonce,
    bytes memory signature
  ) external whenNotPaused notBlacklisted(from) notBlacklisted(to) {
    _transferWithAuthorization(
      TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, signature
    );
  }

  function receiveWithAuthorization(
    address from,
    address to,
    uint256 value,
    uint256 validAfter,
    uint256 validBefore,
    bytes32 nonce,
    uint8 v,
    bytes32 r,
    bytes32 s
  ) external whenNotPaused notBlacklisted(from) notBlacklisted(to) {
    // Stops front-running: only the payee may submit a receive authorization.
    require(to == msg.sender, "FiatTokenV2: caller must be the payee");
    _transferWithAuthorization(
      RECEIVE_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, abi.encodePacked(r, s, v)
    );
  }

  function receiveWithAuthorization(
    address from,
    address to,
    uint256 value,
    uint256 validAfter,
    uint256 validBefore,
    bytes32 nonce,
    bytes memory signature
  ) external whenNotPaused notBlacklisted(from) notBlacklisted(to) {
    require(to == msg.sender, "FiatTokenV2: caller must be the payee");
    _transferWithAuthorization(
      RECEIVE_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, signature
    );
  }

  function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)
    external
    whenNotPaused
  {
    _cancelAuthorization(authorizer, nonce, abi.encodePacked(r, s, v));
  }

  function cancelAuthorization(address authorizer, bytes32 nonce, bytes memory signature) external whenNotPaused {
    _cancelAuthorization(authorizer, nonce, signature);
  }

  function permit(
    address owner,
    address spender,
    uint256 value,
    uint256 deadline,
    uint8 v,
    bytes32 r,
    bytes32 s
  ) external whenNotPaused {
    _permit(owner, spender, value, deadline, abi.encodePacked(r, s, v));
  }

  function permit(address owner, address spender, uint256 value, uint256 deadline, bytes memory signature)
    external
    whenNotPaused
  {
    _permit(owner, spender, value, deadline, signature);
  }

  // Minting

  function isMinter(address account) external view returns (bool) {
    return minters[account];
  }

  function minterAllowance(address minter) external view returns (uint256) {
    return minterAllowed[minter];
  }

  function configureMinter(address minter, uint256 minterAllowedAmount)
    external
    whenNotPaused
    onlyMasterMinter
    returns (bool)
  {
    minters[minter] = true;
    minterAllowed[minter] = minterAllowedAmount;
    emit MinterConfigured(minter, minterAllowedAmount);
    return true;
  }

  function removeMinter(address minter) external onlyMasterMinter returns (bool) {
    minters[minter] = false;
    minterAllowed[minter] = 0;
    emit MinterRemoved(minter);
    return true;
  }

  function mint(address to, uint256 amount)
    external
    whenNotPaused
    onlyMinters
    notBlacklisted(msg.sender)
    notBlacklisted(to)
    returns (bool)
  {
    require(to != address(0), "FiatToken: mint to the zero address");
    require(amount > 0, "FiatToken: mint amount not greater than 0");
    uint256 mintingAllowedAmount = minterAllowed[msg.sender];
    require(amount <= mintingAllowedAmount, "FiatToken: mint amount exceeds minterAllowance");
    totalSupply_ = _add(totalSupply_, amount);
    _setBalance(to, _add(_balanceOf(to), amount));
    minterAllowed[msg.sender] = mintingAllowedAmount - amount;
    emit Mint(msg.sender, to, amount);
    emit Transfer(address(0), to, amount);
    return true;
  }

  function burn(uint256 amount) external whenNotPaused onlyMinters notBlacklisted(msg.sender) {
    uint256 balance = _balanceOf(msg.sender);
    require(amount > 0, "FiatToken: burn amount not greater than 0");
    require(balance >= amount, "FiatToken: burn amount exceeds balance");
    totalSupply_ -= amount;
    _setBalance(msg.sender, balance - amount);
    emit Burn(msg.sender, amount);
    emit Transfer(msg.sender, address(0), amount);
  }

  function updateMasterMinter(address newMasterMinter) external onlyOwner {
    require(newMasterMinter != address(0), "FiatToken: new masterMinter is the zero address");
    masterMinter = newMasterMinter;
    emit MasterMinterChanged(masterMinter);
  }

  // Roles: owner, pauser, blacklister, rescuer

  function owner() external view returns (address) {
    return _owner;
  }

  function transferOwnership(address newOwner) external onlyOwner {
    require(newOwner != address(0), "Ownable: new owner is the zero address");
    emit OwnershipTransferred(_owner, newOwner);
    _owner = newOwner;
  }

  function pause() external onlyPauser {
    paused = true;
    emit Pause();
  }

  function unpause() external onlyPauser {
    paused = false;
    emit Unpause();
  }

  function updatePauser(address newPauser) external onlyOwner {
    require(newPauser != address(0), "Pausable: new pauser is the zero address");
    pauser = newPauser;
    emit PauserChanged(pauser);
  }

  function isBlacklisted(address account) external view returns (bool) {
    return _isBlacklisted(account);
  }

  function blacklist(address account) external onlyBlacklister {
    balanceAndBlacklistStates[account] |= BLACKLIST_BIT;
    emit Blacklisted(account);
  }

  function unBlacklist(address account) external onlyBlacklister {
    balanceAndBlacklistStates[account] &= BALANCE_MASK;
    emit UnBlacklisted(account);
  }

  function updateBlacklister(address newBlacklister) external onlyOwner {
    require(newBlacklister != address(0), "Blacklistable: new blacklister is the zero address");
    blacklister = newBlacklister;
    emit BlacklisterChanged(blacklister);
  }

  function rescuer() external view returns (address) {
    return _rescuer;
  }

  function updateRescuer(address newRescuer) external onlyOwner {
    require(newRescuer != address(0), "Rescuable: new rescuer is the zero address");
    _rescuer = newRescuer;
    emit RescuerChanged(newRescuer);
  }

  /// @notice Moves ERC-20 tokens sent to this contract by mistake (SafeERC20 semantics).
  function rescueERC20(IERC20Transfer tokenContract, address to, uint256 amount) external onlyRescuer {
    require(address(tokenContract).code.length > 0, "Address: call to non-contract");
    (bool success, bytes memory result) = address(tokenContract).call(
      abi.encodeWithSelector(IERC20Transfer.transfer.selector, to, amount)
    );
    if (!success) {
      if (result.length > 0) {
        assembly ("memory-safe") {
          revert(add(result, 0x20), mload(result))
        }
      }
      revert("SafeERC20: low-level call failed");
    }
    require(result.length == 0 || abi.decode(result, (bool)), "SafeERC20: ERC20 operation did not succeed");
  }

  // Internals

  function _domainSeparator() internal view returns (bytes32) {
    return keccak256(
      abi.encode(EIP712_DOMAIN_TYPEHASH, keccak256(bytes(name)), keccak256("2"), block.chainid, address(this))
    );
  }

  function _typedDataHash(bytes32 structHash) internal view returns (bytes32 digest) {
    bytes32 separator = _domainSeparator();
    // keccak256("\x19\x01" ‖ domainSeparator ‖ structHash) without an abi.encodePacked copy.
    assembly ("memory-safe") {
      let ptr := mload(0x40)
      mstore(ptr, 0x1901000000000000000000000000000000000000000000000000000000000000)
      mstore(add(ptr, 0x02), separator)
      mstore(add(ptr, 0x22), structHash)
      digest := keccak256(ptr, 0x42)
    }
  }

  function _transferWithAuthorization(
    bytes32 typeHash,
    address from,
    address to,
    uint256 value,
    uint256 validAfter,
    uint256 validBefore,
    bytes32 nonce,
    bytes memory signature
  ) internal {
    require(block.timestamp > validAfter, "FiatTokenV2: authorization is not yet valid");
    require(block.timestamp < validBefore, "FiatTokenV2: authorization is expired");
    require(!_authorizationStates[from][nonce], "FiatTokenV2: authorization is used or canceled");
    bytes32 structHash = keccak256(abi.encode(typeHash, from, to, value, validAfter, validBefore, nonce));
    require(
      SignatureChecker.isValidSignatureNow(from, _typedDataHash(structHash), signature),
      "FiatTokenV2: invalid signature"
    );
    _authorizationStates[from][nonce] = true;
    emit AuthorizationUsed(from, nonce);
    _transfer(from, to, value);
  }

  function _cancelAuthorization(address authorizer, bytes32 nonce, bytes memory signature) internal {
    require(!_authorizationStates[authorizer][nonce], "FiatTokenV2: authorization is used or canceled");
    bytes32 structHash = keccak256(abi.encode(CANCEL_AUTHORIZATION_TYPEHASH, authorizer, nonce));
    require(
      SignatureChecker.isValidSignatureNow(authorizer, _typedDataHash(structHash), signature),
      "FiatTokenV2: invalid signature"
    );
    _authorizationStates[authorizer][nonce] = true;
    emit AuthorizationCanceled(authorizer, nonce);
  }

  function _permit(address owner, address spender, uint256 value, uint256 deadline, bytes memory signature)
    internal
  {
    // deadline == now is still valid; 2^256-1 never expires.
    require(deadline == type(uint256).max || deadline >= block.timestamp, "FiatTokenV2: permit is expired");
    bytes32 structHash = keccak256(
      abi.encode(PERMIT_TYPEHASH, owner, spender, value, _permitNonces[owner]++, deadline)
    );
    require(
      SignatureChecker.isValidSignatureNow(owner, _typedDataHash(structHash), signature),
      "EIP2612: invalid signature"
    );
    _approve(owner, spender, value);
  }

  function _transfer(address from, address to, uint256 value) internal {
    require(from != address(0), "ERC20: transfer from the zero address");
    require(to != address(0), "ERC20: transfer to the zero address");
    uint256 fromBalance = _balanceOf(from);
    require(value <= fromBalance, "ERC20: transfer amount exceeds balance");
    _setBalance(from, fromBalance - value);
    _setBalance(to, _balanceOf(to) + value);
    emit Transfer(from, to, value);
  }

  function _approve(address owner, address spender, uint256 value) internal {
    require(owner != address(0), "ERC20: approve from the zero address");
    require(spender != address(0), "ERC20: approve to the zero address");
    allowed[owner][spender] = value;
    emit Approval(owner, spender, value);
  }

  /// @dev FiatToken's SafeMath addition: overflow reverts with its message, not a panic.
  function _add(uint256 a, uint256 b) internal pure returns (uint256 c) {
    unchecked {
      c = a + b;
    }
    require(c >= a, "SafeMath: addition overflow");
  }

  function _balanceOf(address account) internal view returns (uint256) {
    return balanceAndBlacklistStates[account] & BALANCE_MASK;
  }

  function _isBlacklisted(address account) internal view returns (bool) {
    return balanceAndBlacklistStates[account] & BLACKLIST_BIT != 0;
  }

  /// @dev Writing the whole word would clear bit 255, hence V2_2's refusal for blacklisted accounts.
  function _setBalance(address account, uint256 balance) internal {
    require(balance <= BALANCE_MASK, "FiatTokenV2_2: Balance exceeds (2^255 - 1)");
    require(!_isBlacklisted(account), "FiatTokenV2_2: Account is blacklisted");
    balanceAndBlacklistStates[account] = balance;
  }
}
