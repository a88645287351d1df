// SPDX-License-Identifier: MIT
pragma solidity ^0.8.37;

import {SignatureChecker} from "./PaymentToken.sol";

/// @dev The ERC-20 calls the checkout makes on the token (permit: see {PermitCheckout._permitCall}).
interface IERC20Permit {
  function allowance(address owner, address spender) external view returns (uint256);
  function transferFrom(address from, address to, uint256 value) external returns (bool);
  function transfer(address to, uint256 value) external returns (bool);
}

/**
 * @title PermitCheckout
 * @notice Variable-total checkout on an EIP-2612 token. At checkout the buyer
 * signs two things: an EIP-2612 permit giving this contract an allowance of
 * `cap` until `deadline`, and an EIP-712 `Order` naming the token, the
 * merchant, the cap, the deadline and the order id. Once the final amount is
 * known the merchant calls {capture}: the amount (≤ cap) goes to the merchant
 * named in the signed order, before the deadline, once per order; the rest of
 * the allowance is spent back to the buyer, so no allowance is left behind.
 * Either party can {void} the order first.
 *
 * @dev Why two signatures: a permit names only owner, spender, value, nonce
 * and deadline, so on its own it cannot say who is paid. The order binds the
 * recipient; the merchant cannot redirect funds, pull more than the cap or
 * capture twice. Why the cap passes through the contract: an ERC-20 allowance
 * can only be lowered by its owner, so the only way for a spender to leave
 * none behind is to spend all of it. The contract pulls `cap`, pays
 * `amount` and returns `cap - amount` in the same call; it holds nothing
 * between calls. The cost: at capture the buyer must still hold the cap, as a
 * card hold would. No immutables and no constructor state: the code can be
 * placed at any address (devnet predeploys it at genesis).
 */
contract PermitCheckout {
  /// @notice What the buyer signs besides the permit.
  struct Order {
    address token;
    address buyer;
    address merchant;
    uint256 cap;
    uint256 deadline;
    bytes32 orderId;
  }

  /// @notice An order's state; `Open` is also "never seen".
  enum State {
    Open,
    Captured,
    Voided
  }

  bytes32 public constant ORDER_TYPEHASH =
    keccak256("Order(address token,address buyer,address merchant,uint256 cap,uint256 deadline,bytes32 orderId)");
  bytes32 private constant EIP712_DOMAIN_TYPEHASH =
    keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
  string private constant NAME = "PermitCheckout";
  string private constant VERSION = "1";

  /// @dev keccak256(merchant, buyer, orderId) => state. The buyer is part of
  /// the key so that one buyer cannot void another buyer's order by its id.
  mapping(bytes32 => State) internal _states;

  event OrderCaptured(
    bytes32 indexed orderId,
    address indexed merchant,
    address indexed buyer,
    address token,
    uint256 amount,
    uint256 cap
  );
  event OrderVoided(bytes32 indexed orderId, address indexed merchant, address indexed buyer, address by);

  /**
   * @notice Pays `amount` (≤ `order.cap`) from the buyer to `order.merchant`.
   * Only the merchant may capture: the amount is its decision, and a third
   * party holding the signatures could otherwise close the order for 0.
   * @param permitSignature the buyer's EIP-2612 permit (spender this contract,
   * value `order.cap`, deadline `order.deadline`), r ‖ s ‖ v or ERC-1271 bytes.
   * If the permit was already submitted (anyone may submit it to the token),
   * the allowance it set is used.
   */
  function capture(
    Order calldata order,
    bytes calldata orderSignature,
    bytes calldata permitSignature,
    uint256 amount
  ) external {
    require(msg.sender == order.merchant, "PermitCheckout: caller is not the merchant");
    bytes32 key = orderKey(order.merchant, order.buyer, order.orderId);
    State state = _states[key];
    require(state != State.Captured, "PermitCheckout: order already captured");
    require(state != State.Voided, "PermitCheckout: order voided");
    require(block.timestamp <= order.deadline, "PermitCheckout: order expired");
    require(amount <= order.cap, "PermitCheckout: amount exceeds cap");
    require(
      SignatureChecker.isValidSignatureNow(order.buyer, hashOrder(order), orderSignature),
      "PermitCheckout: invalid order signature"
    );
    _states[key] = State.Captured;

    _permit(order, permitSignature);
    _call(order.token, abi.encodeCall(IERC20Permit.transferFrom, (order.buyer, address(this), order.cap)));
    _call(order.token, abi.encodeCall(IERC20Permit.transfer, (order.merchant, amount)));
    if (order.cap > amount)
      _call(order.token, abi.encodeCall(IERC20Permit.transfer, (order.buyer, order.cap - amount)));
    emit OrderCaptured(order.orderId, order.merchant, order.buyer, order.token, amount, order.cap);
  }

  /**
   * @notice Closes an open order for good; only its merchant or its buyer may.
   * The permit signature stays valid on the token until its deadline (EIP-2612
   * has no cancel), but this contract will never spend for a voided order.
   */
  function void(address merchant, address buyer, bytes32 orderId) external {
    require(msg.sender == merchant || msg.sender == buyer, "PermitCheckout: caller is not the buyer or merchant");
    bytes32 key = orderKey(merchant, buyer, orderId);
    State state = _states[key];
    require(state != State.Captured, "PermitCheckout: order already captured");
    require(state != State.Voided, "PermitCheckout: order voided");
    _states[key] = State.Voided;
    emit OrderVoided(orderId, merchant, buyer, msg.sender);
  }

  /// @notice The state of `orderId` between `merchant` and `buyer`.
  function orderState(address merchant, address buyer, bytes32 orderId) external view returns (State) {
    return _states[orderKey(merchant, buyer, orderId)];
  }

  function orderKey(address merchant, address buyer, bytes32 orderId) public pure returns (bytes32) {
    return keccak256(abi.encode(merchant, buyer, orderId));
  }

  /// @notice The EIP-712 digest the buyer signs for `order`.
  function hashOrder(Order calldata order) public view returns (bytes32) {
    bytes32 structHash = keccak256(
      abi.encode(ORDER_TYPEHASH, order.token, order.buyer, order.merchant, order.cap, order.deadline, order.orderId)
    );
    return keccak256(abi.encodePacked("\x19\x01", DOMAIN_SEPARATOR(), structHash));
  }

  /// @notice Recomputed per call from `block.chainid` and `address(this)`: no immutables.
  function DOMAIN_SEPARATOR() public view returns (bytes32) {
    return keccak256(
      abi.encode(EIP712_DOMAIN_TYPEHASH, keccak256(bytes(NAME)), keccak256(bytes(VERSION)), block.chainid, address(this))
    );
  }

  /// @notice ERC-5267, so wallets and viem's getEip712Domain find the domain.
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

  /// @dev Submits the buyer's permit. A front-runner may have submitted it
  /// already; that only set the allowance this capture needs, so a failed
  /// permit is fatal only when the allowance is short.
  function _permit(Order calldata order, bytes calldata signature) private {
    (bool permitted, bytes memory reason) = order.token.call(_permitCall(order, signature));
    if (!permitted && IERC20Permit(order.token).allowance(order.buyer, address(this)) < order.cap) {
      // The token's own reason ("Pausable: paused", "FiatTokenV2: permit is expired", …) says why.
      assembly ("memory-safe") {
        revert(add(reason, 0x20), mload(reason))
      }
    }
  }

  /// @dev A 65-byte signature uses EIP-2612's own `(v, r, s)` form, which every
  /// permit token has; anything else (an ERC-1271 buyer) the `bytes` overload
  /// of USDC v2.2.
  function _permitCall(Order calldata order, bytes calldata signature) private view returns (bytes memory) {
    if (signature.length == 65)
      return abi.encodeWithSignature(
        "permit(address,address,uint256,uint256,uint8,bytes32,bytes32)",
        order.buyer,
        address(this),
        order.cap,
        order.deadline,
        uint8(signature[64]),
        bytes32(signature[0:32]),
        bytes32(signature[32:64])
      );
    return abi.encodeWithSignature(
      "permit(address,address,uint256,uint256,bytes)", order.buyer, address(this), order.cap, order.deadline, signature
    );
  }

  /// @dev Calls the token; bubbles its revert string up unchanged, so clients
  /// see USDC's own reasons ("Pausable: paused", …); a `false` return fails too.
  function _call(address token, bytes memory data) private {
    (bool success, bytes memory result) = token.call(data);
    if (!success) {
      assembly ("memory-safe") {
        revert(add(result, 0x20), mload(result))
      }
    }
    require(result.length == 0 || abi.decode(result, (bool)), "PermitCheckout: token call failed");
  }
}
