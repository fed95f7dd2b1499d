!(function (e, t) {
  "object" == typeof exports && "undefined" != typeof module
    ? t(exports)
    : "function" == typeof define && define.amd
      ? define(["exports"], t)
      : t(
          ((e =
            "undefined" != typeof globalThis
              ? globalThis
              : e || self).temporal = {}),
        );
})(this, function (e) {
  "use strict";
  function _arrayLikeToArray(e, t) {
    (null == t || t > e.length) && (t = e.length);
    for (var n = 0, r = Array(t); n < t; n++) r[n] = e[n];
    return r;
  }
  function _assertThisInitialized(e) {
    if (void 0 === e)
      throw new ReferenceError(
        "this hasn't been initialised - super() hasn't been called",
      );
    return e;
  }
  function _classCallCheck(e, t) {
    if (!(e instanceof t))
      throw new TypeError("Cannot call a class as a function");
  }
  function _defineProperties(e, t) {
    for (var n = 0; n < t.length; n++) {
      var r = t[n];
      ((r.enumerable = r.enumerable || !1),
        (r.configurable = !0),
        "value" in r && (r.writable = !0),
        Object.defineProperty(e, _toPropertyKey(r.key), r));
    }
  }
  function _createClass(e, t, n) {
    return (
      t && _defineProperties(e.prototype, t),
      n && _defineProperties(e, n),
      Object.defineProperty(e, "prototype", { writable: !1 }),
      e
    );
  }
  function _createForOfIteratorHelper(e, t) {
    var n =
      ("undefined" != typeof Symbol && e[Symbol.iterator]) || e["@@iterator"];
    if (!n) {
      if (
        Array.isArray(e) ||
        (n = _unsupportedIterableToArray(e)) ||
        (t && e && "number" == typeof e.length)
      ) {
        n && (e = n);
        var r = 0,
          F = function () {};
        return {
          s: F,
          n: function () {
            return r >= e.length ? { done: !0 } : { done: !1, value: e[r++] };
          },
          e: function (e) {
            throw e;
          },
          f: F,
        };
      }
      throw new TypeError(
        "Invalid attempt to iterate non-iterable instance.\nIn order to be iterable, non-array objects must have a [Symbol.iterator]() method.",
      );
    }
    var a,
      o = !0,
      i = !1;
    return {
      s: function () {
        n = n.call(e);
      },
      n: function () {
        var e = n.next();
        return ((o = e.done), e);
      },
      e: function (e) {
        ((i = !0), (a = e));
      },
      f: function () {
        try {
          o || null == n.return || n.return();
        } finally {
          if (i) throw a;
        }
      },
    };
  }
  function _createSuper(e) {
    var t = _isNativeReflectConstruct();
    return function () {
      var n,
        r = _getPrototypeOf(e);
      if (t) {
        var a = _getPrototypeOf(this).constructor;
        n = Reflect.construct(r, arguments, a);
      } else n = r.apply(this, arguments);
      return _possibleConstructorReturn(this, n);
    };
  }
  function _defineProperty(e, t, n) {
    return (
      (t = _toPropertyKey(t)) in e
        ? Object.defineProperty(e, t, {
            value: n,
            enumerable: !0,
            configurable: !0,
            writable: !0,
          })
        : (e[t] = n),
      e
    );
  }
  function _get() {
    return (
      (_get =
        "undefined" != typeof Reflect && Reflect.get
          ? Reflect.get.bind()
          : function (e, t, n) {
              var r = (function _superPropBase(e, t) {
                for (
                  ;
                  !{}.hasOwnProperty.call(e, t) &&
                  null !== (e = _getPrototypeOf(e));

                );
                return e;
              })(e, t);
              if (r) {
                var a = Object.getOwnPropertyDescriptor(r, t);
                return a.get
                  ? a.get.call(arguments.length < 3 ? e : n)
                  : a.value;
              }
            }),
      _get.apply(null, arguments)
    );
  }
  function _getPrototypeOf(e) {
    return (
      (_getPrototypeOf = Object.setPrototypeOf
        ? Object.getPrototypeOf.bind()
        : function (e) {
            return e.__proto__ || Object.getPrototypeOf(e);
          }),
      _getPrototypeOf(e)
    );
  }
  function _inherits(e, t) {
    if ("function" != typeof t && null !== t)
      throw new TypeError("Super expression must either be null or a function");
    ((e.prototype = Object.create(t && t.prototype, {
      constructor: { value: e, writable: !0, configurable: !0 },
    })),
      Object.defineProperty(e, "prototype", { writable: !1 }),
      t && _setPrototypeOf(e, t));
  }
  function _isNativeReflectConstruct() {
    try {
      var e = !Boolean.prototype.valueOf.call(
        Reflect.construct(Boolean, [], function () {}),
      );
    } catch (e) {}
    return (_isNativeReflectConstruct = function () {
      return !!e;
    })();
  }
  function ownKeys(e, t) {
    var n = Object.keys(e);
    if (Object.getOwnPropertySymbols) {
      var r = Object.getOwnPropertySymbols(e);
      (t &&
        (r = r.filter(function (t) {
          return Object.getOwnPropertyDescriptor(e, t).enumerable;
        })),
        n.push.apply(n, r));
    }
    return n;
  }
  function _objectSpread2(e) {
    for (var t = 1; t < arguments.length; t++) {
      var n = null != arguments[t] ? arguments[t] : {};
      t % 2
        ? ownKeys(Object(n), !0).forEach(function (t) {
            _defineProperty(e, t, n[t]);
          })
        : Object.getOwnPropertyDescriptors
          ? Object.defineProperties(e, Object.getOwnPropertyDescriptors(n))
          : ownKeys(Object(n)).forEach(function (t) {
              Object.defineProperty(
                e,
                t,
                Object.getOwnPropertyDescriptor(n, t),
              );
            });
    }
    return e;
  }
  function _possibleConstructorReturn(e, t) {
    if (t && ("object" == typeof t || "function" == typeof t)) return t;
    if (void 0 !== t)
      throw new TypeError(
        "Derived constructors may only return object or undefined",
      );
    return _assertThisInitialized(e);
  }
  function _setPrototypeOf(e, t) {
    return (
      (_setPrototypeOf = Object.setPrototypeOf
        ? Object.setPrototypeOf.bind()
        : function (e, t) {
            return ((e.__proto__ = t), e);
          }),
      _setPrototypeOf(e, t)
    );
  }
  function _slicedToArray(e, t) {
    return (
      (function _arrayWithHoles(e) {
        if (Array.isArray(e)) return e;
      })(e) ||
      (function _iterableToArrayLimit(e, t) {
        var n =
          null == e
            ? null
            : ("undefined" != typeof Symbol && e[Symbol.iterator]) ||
              e["@@iterator"];
        if (null != n) {
          var r,
            a,
            o,
            i,
            u = [],
            s = !0,
            l = !1;
          try {
            if (((o = (n = n.call(e)).next), 0 === t)) {
              if (Object(n) !== n) return;
              s = !1;
            } else
              for (
                ;
                !(s = (r = o.call(n)).done) &&
                (u.push(r.value), u.length !== t);
                s = !0
              );
          } catch (e) {
            ((l = !0), (a = e));
          } finally {
            try {
              if (!s && null != n.return && ((i = n.return()), Object(i) !== i))
                return;
            } finally {
              if (l) throw a;
            }
          }
          return u;
        }
      })(e, t) ||
      _unsupportedIterableToArray(e, t) ||
      (function _nonIterableRest() {
        throw new TypeError(
          "Invalid attempt to destructure non-iterable instance.\nIn order to be iterable, non-array objects must have a [Symbol.iterator]() method.",
        );
      })()
    );
  }
  function _toConsumableArray(e) {
    return (
      (function _arrayWithoutHoles(e) {
        if (Array.isArray(e)) return _arrayLikeToArray(e);
      })(e) ||
      (function _iterableToArray(e) {
        if (
          ("undefined" != typeof Symbol && null != e[Symbol.iterator]) ||
          null != e["@@iterator"]
        )
          return Array.from(e);
      })(e) ||
      _unsupportedIterableToArray(e) ||
      (function _nonIterableSpread() {
        throw new TypeError(
          "Invalid attempt to spread non-iterable instance.\nIn order to be iterable, non-array objects must have a [Symbol.iterator]() method.",
        );
      })()
    );
  }
  function _toPropertyKey(e) {
    var t = (function _toPrimitive(e, t) {
      if ("object" != typeof e || !e) return e;
      var n = e[Symbol.toPrimitive];
      if (void 0 !== n) {
        var r = n.call(e, t || "default");
        if ("object" != typeof r) return r;
        throw new TypeError("@@toPrimitive must return a primitive value.");
      }
      return ("string" === t ? String : Number)(e);
    })(e, "string");
    return "symbol" == typeof t ? t : t + "";
  }
  function _typeof(e) {
    return (
      (_typeof =
        "function" == typeof Symbol && "symbol" == typeof Symbol.iterator
          ? function (e) {
              return typeof e;
            }
          : function (e) {
              return e &&
                "function" == typeof Symbol &&
                e.constructor === Symbol &&
                e !== Symbol.prototype
                ? "symbol"
                : typeof e;
            }),
      _typeof(e)
    );
  }
  function _unsupportedIterableToArray(e, t) {
    if (e) {
      if ("string" == typeof e) return _arrayLikeToArray(e, t);
      var n = {}.toString.call(e).slice(8, -1);
      return (
        "Object" === n && e.constructor && (n = e.constructor.name),
        "Map" === n || "Set" === n
          ? Array.from(e)
          : "Arguments" === n ||
              /^(?:Ui|I)nt(?:8|16|32)(?:Clamped)?Array$/.test(n)
            ? _arrayLikeToArray(e, t)
            : void 0
      );
    }
  }
  function _wrapNativeSuper(e) {
    var t = "function" == typeof Map ? new Map() : void 0;
    return (
      (_wrapNativeSuper = function (e) {
        if (
          null === e ||
          !(function _isNativeFunction(e) {
            try {
              return -1 !== Function.toString.call(e).indexOf("[native code]");
            } catch (t) {
              return "function" == typeof e;
            }
          })(e)
        )
          return e;
        if ("function" != typeof e)
          throw new TypeError(
            "Super expression must either be null or a function",
          );
        if (void 0 !== t) {
          if (t.has(e)) return t.get(e);
          t.set(e, Wrapper);
        }
        function Wrapper() {
          return (function _construct(e, t, n) {
            if (_isNativeReflectConstruct())
              return Reflect.construct.apply(null, arguments);
            var r = [null];
            r.push.apply(r, t);
            var a = new (e.bind.apply(e, r))();
            return (n && _setPrototypeOf(a, n.prototype), a);
          })(e, arguments, _getPrototypeOf(this).constructor);
        }
        return (
          (Wrapper.prototype = Object.create(e.prototype, {
            constructor: {
              value: Wrapper,
              enumerable: !1,
              writable: !0,
              configurable: !0,
            },
          })),
          _setPrototypeOf(Wrapper, e)
        );
      }),
      _wrapNativeSuper(e)
    );
  }
  var t = (function (e) {
    _inherits(JSBI, e);
    var t = _createSuper(JSBI);
    function JSBI(e, n) {
      var r;
      if (
        (_classCallCheck(this, JSBI),
        ((r = t.call(this, e)).sign = n),
        Object.setPrototypeOf(_assertThisInitialized(r), JSBI.prototype),
        e > JSBI.__kMaxLength)
      )
        throw new RangeError("Maximum BigInt size exceeded");
      return _possibleConstructorReturn(r);
    }
    return (
      _createClass(
        JSBI,
        [
          {
            key: "toDebugString",
            value: function toDebugString() {
              var e,
                t = ["BigInt["],
                n = _createForOfIteratorHelper(this);
              try {
                for (n.s(); !(e = n.n()).done; ) {
                  var r = e.value;
                  t.push((r ? (r >>> 0).toString(16) : r) + ", ");
                }
              } catch (e) {
                n.e(e);
              } finally {
                n.f();
              }
              return (t.push("]"), t.join(""));
            },
          },
          {
            key: "toString",
            value: function toString() {
              var e =
                arguments.length > 0 && void 0 !== arguments[0]
                  ? arguments[0]
                  : 10;
              if (2 > e || 36 < e)
                throw new RangeError(
                  "toString() radix argument must be between 2 and 36",
                );
              return 0 === this.length
                ? "0"
                : 0 == (e & (e - 1))
                  ? JSBI.__toStringBasePowerOfTwo(this, e)
                  : JSBI.__toStringGeneric(this, e, !1);
            },
          },
          {
            key: "valueOf",
            value: function valueOf() {
              throw new Error(
                "Convert JSBI instances to native numbers using `toNumber`.",
              );
            },
          },
          {
            key: "__copy",
            value: function __copy() {
              for (
                var e = new JSBI(this.length, this.sign), t = 0;
                t < this.length;
                t++
              )
                e[t] = this[t];
              return e;
            },
          },
          {
            key: "__trim",
            value: function __trim() {
              for (var e = this.length, t = this[e - 1]; 0 === t; )
                ((t = this[--e - 1]), this.pop());
              return (0 === e && (this.sign = !1), this);
            },
          },
          {
            key: "__initializeDigits",
            value: function __initializeDigits() {
              for (var e = 0; e < this.length; e++) this[e] = 0;
            },
          },
          {
            key: "__clzmsd",
            value: function __clzmsd() {
              return JSBI.__clz30(this.__digit(this.length - 1));
            },
          },
          {
            key: "__inplaceMultiplyAdd",
            value: function __inplaceMultiplyAdd(e, t, n) {
              n > this.length && (n = this.length);
              for (
                var r = 32767 & e, a = e >>> 15, o = 0, i = t, u = 0;
                u < n;
                u++
              ) {
                var s = this.__digit(u),
                  l = 32767 & s,
                  c = s >>> 15,
                  d = JSBI.__imul(l, r),
                  m = JSBI.__imul(l, a),
                  h = JSBI.__imul(c, r),
                  f = i + d + o;
                ((o = f >>> 30),
                  (f &= 1073741823),
                  (o +=
                    (f += ((32767 & m) << 15) + ((32767 & h) << 15)) >>> 30),
                  (i = JSBI.__imul(c, a) + (m >>> 15) + (h >>> 15)),
                  this.__setDigit(u, 1073741823 & f));
              }
              if (0 != o || 0 !== i) throw new Error("implementation bug");
            },
          },
          {
            key: "__inplaceAdd",
            value: function __inplaceAdd(e, t, n) {
              for (var r = 0, a = 0; a < n; a++) {
                var o = this.__halfDigit(t + a) + e.__halfDigit(a) + r;
                ((r = o >>> 15), this.__setHalfDigit(t + a, 32767 & o));
              }
              return r;
            },
          },
          {
            key: "__inplaceSub",
            value: function __inplaceSub(e, t, n) {
              var r = 0;
              if (1 & t) {
                t >>= 1;
                for (
                  var a = this.__digit(t), o = 32767 & a, i = 0;
                  i < (n - 1) >>> 1;
                  i++
                ) {
                  var u = e.__digit(i),
                    s = (a >>> 15) - (32767 & u) - r;
                  ((r = 1 & (s >>> 15)),
                    this.__setDigit(t + i, ((32767 & s) << 15) | (32767 & o)),
                    (r =
                      1 &
                      ((o =
                        (32767 & (a = this.__digit(t + i + 1))) -
                        (u >>> 15) -
                        r) >>>
                        15)));
                }
                var l = e.__digit(i),
                  c = (a >>> 15) - (32767 & l) - r;
                if (
                  ((r = 1 & (c >>> 15)),
                  this.__setDigit(t + i, ((32767 & c) << 15) | (32767 & o)),
                  t + i + 1 >= this.length)
                )
                  throw new RangeError("out of bounds");
                0 == (1 & n) &&
                  ((r =
                    1 &
                    ((o =
                      (32767 & (a = this.__digit(t + i + 1))) -
                      (l >>> 15) -
                      r) >>>
                      15)),
                  this.__setDigit(
                    t + e.length,
                    (1073709056 & a) | (32767 & o),
                  ));
              } else {
                t >>= 1;
                for (var d = 0; d < e.length - 1; d++) {
                  var m = this.__digit(t + d),
                    h = e.__digit(d),
                    f = (32767 & m) - (32767 & h) - r,
                    p = (m >>> 15) - (h >>> 15) - (r = 1 & (f >>> 15));
                  ((r = 1 & (p >>> 15)),
                    this.__setDigit(t + d, ((32767 & p) << 15) | (32767 & f)));
                }
                var v = this.__digit(t + d),
                  D = e.__digit(d),
                  g = (32767 & v) - (32767 & D) - r;
                r = 1 & (g >>> 15);
                var y = 0;
                (0 == (1 & n) &&
                  (r = 1 & ((y = (v >>> 15) - (D >>> 15) - r) >>> 15)),
                  this.__setDigit(t + d, ((32767 & y) << 15) | (32767 & g)));
              }
              return r;
            },
          },
          {
            key: "__inplaceRightShift",
            value: function __inplaceRightShift(e) {
              if (0 !== e) {
                for (
                  var t = this.__digit(0) >>> e, n = this.length - 1, r = 0;
                  r < n;
                  r++
                ) {
                  var a = this.__digit(r + 1);
                  (this.__setDigit(r, (1073741823 & (a << (30 - e))) | t),
                    (t = a >>> e));
                }
                this.__setDigit(n, t);
              }
            },
          },
          {
            key: "__digit",
            value: function __digit(e) {
              return this[e];
            },
          },
          {
            key: "__unsignedDigit",
            value: function __unsignedDigit(e) {
              return this[e] >>> 0;
            },
          },
          {
            key: "__setDigit",
            value: function __setDigit(e, t) {
              this[e] = 0 | t;
            },
          },
          {
            key: "__setDigitGrow",
            value: function __setDigitGrow(e, t) {
              this[e] = 0 | t;
            },
          },
          {
            key: "__halfDigitLength",
            value: function __halfDigitLength() {
              var e = this.length;
              return 32767 >= this.__unsignedDigit(e - 1) ? 2 * e - 1 : 2 * e;
            },
          },
          {
            key: "__halfDigit",
            value: function __halfDigit(e) {
              return 32767 & (this[e >>> 1] >>> (15 * (1 & e)));
            },
          },
          {
            key: "__setHalfDigit",
            value: function __setHalfDigit(e, t) {
              var n = e >>> 1,
                r = this.__digit(n),
                a =
                  1 & e
                    ? (32767 & r) | (t << 15)
                    : (1073709056 & r) | (32767 & t);
              this.__setDigit(n, a);
            },
          },
        ],
        [
          {
            key: "BigInt",
            value: function BigInt(e) {
              var t = Math.floor,
                n = Number.isFinite;
              if ("number" == typeof e) {
                if (0 === e) return JSBI.__zero();
                if (JSBI.__isOneDigitInt(e))
                  return 0 > e
                    ? JSBI.__oneDigit(-e, !0)
                    : JSBI.__oneDigit(e, !1);
                if (!n(e) || t(e) !== e)
                  throw new RangeError(
                    "The number " +
                      e +
                      " cannot be converted to BigInt because it is not an integer",
                  );
                return JSBI.__fromDouble(e);
              }
              if ("string" == typeof e) {
                var r = JSBI.__fromString(e);
                if (null === r)
                  throw new SyntaxError("Cannot convert " + e + " to a BigInt");
                return r;
              }
              if ("boolean" == typeof e)
                return !0 === e ? JSBI.__oneDigit(1, !1) : JSBI.__zero();
              if ("object" == _typeof(e)) {
                if (e.constructor === JSBI) return e;
                var a = JSBI.__toPrimitive(e);
                return JSBI.BigInt(a);
              }
              throw new TypeError("Cannot convert " + e + " to a BigInt");
            },
          },
          {
            key: "toNumber",
            value: function toNumber(e) {
              var t = e.length;
              if (0 === t) return 0;
              if (1 === t) {
                var n = e.__unsignedDigit(0);
                return e.sign ? -n : n;
              }
              var r = e.__digit(t - 1),
                a = JSBI.__clz30(r),
                o = 30 * t - a;
              if (1024 < o) return e.sign ? -1 / 0 : 1 / 0;
              var i = o - 1,
                u = r,
                s = t - 1,
                l = a + 3,
                c = 32 === l ? 0 : u << l;
              c >>>= 12;
              var d = l - 12,
                m = 12 <= l ? 0 : u << (20 + l),
                h = 20 + l;
              for (
                0 < d &&
                0 < s &&
                (s--,
                (c |= (u = e.__digit(s)) >>> (30 - d)),
                (m = u << (d + 2)),
                (h = d + 2));
                0 < h && 0 < s;

              )
                (s--,
                  (u = e.__digit(s)),
                  (m |= 30 <= h ? u << (h - 30) : u >>> (30 - h)),
                  (h -= 30));
              var f = JSBI.__decideRounding(e, h, s, u);
              if (
                (1 === f || (0 === f && 1 == (1 & m))) &&
                0 == (m = (m + 1) >>> 0) &&
                0 != ++c >>> 20 &&
                ((c = 0), 1023 < ++i)
              )
                return e.sign ? -1 / 0 : 1 / 0;
              var p = e.sign ? -2147483648 : 0;
              return (
                (i = (i + 1023) << 20),
                (JSBI.__kBitConversionInts[1] = p | i | c),
                (JSBI.__kBitConversionInts[0] = m),
                JSBI.__kBitConversionDouble[0]
              );
            },
          },
          {
            key: "unaryMinus",
            value: function unaryMinus(e) {
              if (0 === e.length) return e;
              var t = e.__copy();
              return ((t.sign = !e.sign), t);
            },
          },
          {
            key: "bitwiseNot",
            value: function bitwiseNot(e) {
              return e.sign
                ? JSBI.__absoluteSubOne(e).__trim()
                : JSBI.__absoluteAddOne(e, !0);
            },
          },
          {
            key: "exponentiate",
            value: function exponentiate(e, t) {
              if (t.sign) throw new RangeError("Exponent must be positive");
              if (0 === t.length) return JSBI.__oneDigit(1, !1);
              if (0 === e.length) return e;
              if (1 === e.length && 1 === e.__digit(0))
                return e.sign && 0 == (1 & t.__digit(0))
                  ? JSBI.unaryMinus(e)
                  : e;
              if (1 < t.length) throw new RangeError("BigInt too big");
              var n = t.__unsignedDigit(0);
              if (1 === n) return e;
              if (n >= JSBI.__kMaxLengthBits)
                throw new RangeError("BigInt too big");
              if (1 === e.length && 2 === e.__digit(0)) {
                var r = 1 + (0 | (n / 30)),
                  a = new JSBI(r, e.sign && 0 != (1 & n));
                a.__initializeDigits();
                var o = 1 << n % 30;
                return (a.__setDigit(r - 1, o), a);
              }
              var i = null,
                u = e;
              for (0 != (1 & n) && (i = e), n >>= 1; 0 !== n; n >>= 1)
                ((u = JSBI.multiply(u, u)),
                  0 != (1 & n) && (i = null === i ? u : JSBI.multiply(i, u)));
              return i;
            },
          },
          {
            key: "multiply",
            value: function multiply(e, t) {
              if (0 === e.length) return e;
              if (0 === t.length) return t;
              var n = e.length + t.length;
              30 <= e.__clzmsd() + t.__clzmsd() && n--;
              var r = new JSBI(n, e.sign !== t.sign);
              r.__initializeDigits();
              for (var a = 0; a < e.length; a++)
                JSBI.__multiplyAccumulate(t, e.__digit(a), r, a);
              return r.__trim();
            },
          },
          {
            key: "divide",
            value: function divide(e, t) {
              if (0 === t.length) throw new RangeError("Division by zero");
              if (0 > JSBI.__absoluteCompare(e, t)) return JSBI.__zero();
              var n,
                r = e.sign !== t.sign,
                a = t.__unsignedDigit(0);
              if (1 === t.length && 32767 >= a) {
                if (1 === a) return r === e.sign ? e : JSBI.unaryMinus(e);
                n = JSBI.__absoluteDivSmall(e, a, null);
              } else n = JSBI.__absoluteDivLarge(e, t, !0, !1);
              return ((n.sign = r), n.__trim());
            },
          },
          {
            key: "remainder",
            value: function remainder(e, t) {
              if (0 === t.length) throw new RangeError("Division by zero");
              if (0 > JSBI.__absoluteCompare(e, t)) return e;
              var n = t.__unsignedDigit(0);
              if (1 === t.length && 32767 >= n) {
                if (1 === n) return JSBI.__zero();
                var r = JSBI.__absoluteModSmall(e, n);
                return 0 === r ? JSBI.__zero() : JSBI.__oneDigit(r, e.sign);
              }
              var a = JSBI.__absoluteDivLarge(e, t, !1, !0);
              return ((a.sign = e.sign), a.__trim());
            },
          },
          {
            key: "add",
            value: function add(e, t) {
              var n = e.sign;
              return n === t.sign
                ? JSBI.__absoluteAdd(e, t, n)
                : 0 <= JSBI.__absoluteCompare(e, t)
                  ? JSBI.__absoluteSub(e, t, n)
                  : JSBI.__absoluteSub(t, e, !n);
            },
          },
          {
            key: "subtract",
            value: function subtract(e, t) {
              var n = e.sign;
              return n === t.sign
                ? 0 <= JSBI.__absoluteCompare(e, t)
                  ? JSBI.__absoluteSub(e, t, n)
                  : JSBI.__absoluteSub(t, e, !n)
                : JSBI.__absoluteAdd(e, t, n);
            },
          },
          {
            key: "leftShift",
            value: function leftShift(e, t) {
              return 0 === t.length || 0 === e.length
                ? e
                : t.sign
                  ? JSBI.__rightShiftByAbsolute(e, t)
                  : JSBI.__leftShiftByAbsolute(e, t);
            },
          },
          {
            key: "signedRightShift",
            value: function signedRightShift(e, t) {
              return 0 === t.length || 0 === e.length
                ? e
                : t.sign
                  ? JSBI.__leftShiftByAbsolute(e, t)
                  : JSBI.__rightShiftByAbsolute(e, t);
            },
          },
          {
            key: "unsignedRightShift",
            value: function unsignedRightShift() {
              throw new TypeError(
                "BigInts have no unsigned right shift; use >> instead",
              );
            },
          },
          {
            key: "lessThan",
            value: function lessThan(e, t) {
              return 0 > JSBI.__compareToBigInt(e, t);
            },
          },
          {
            key: "lessThanOrEqual",
            value: function lessThanOrEqual(e, t) {
              return 0 >= JSBI.__compareToBigInt(e, t);
            },
          },
          {
            key: "greaterThan",
            value: function greaterThan(e, t) {
              return 0 < JSBI.__compareToBigInt(e, t);
            },
          },
          {
            key: "greaterThanOrEqual",
            value: function greaterThanOrEqual(e, t) {
              return 0 <= JSBI.__compareToBigInt(e, t);
            },
          },
          {
            key: "equal",
            value: function equal(e, t) {
              if (e.sign !== t.sign) return !1;
              if (e.length !== t.length) return !1;
              for (var n = 0; n < e.length; n++)
                if (e.__digit(n) !== t.__digit(n)) return !1;
              return !0;
            },
          },
          {
            key: "notEqual",
            value: function notEqual(e, t) {
              return !JSBI.equal(e, t);
            },
          },
          {
            key: "bitwiseAnd",
            value: function bitwiseAnd(e, t) {
              var n,
                r = Math.max;
              if (!e.sign && !t.sign) return JSBI.__absoluteAnd(e, t).__trim();
              if (e.sign && t.sign) {
                var a = r(e.length, t.length) + 1,
                  o = JSBI.__absoluteSubOne(e, a),
                  i = JSBI.__absoluteSubOne(t);
                return (
                  (o = JSBI.__absoluteOr(o, i, o)),
                  JSBI.__absoluteAddOne(o, !0, o).__trim()
                );
              }
              return (
                e.sign && ((e = (n = [t, e])[0]), (t = n[1])),
                JSBI.__absoluteAndNot(e, JSBI.__absoluteSubOne(t)).__trim()
              );
            },
          },
          {
            key: "bitwiseXor",
            value: function bitwiseXor(e, t) {
              var n,
                r = Math.max;
              if (!e.sign && !t.sign) return JSBI.__absoluteXor(e, t).__trim();
              if (e.sign && t.sign) {
                var a = r(e.length, t.length),
                  o = JSBI.__absoluteSubOne(e, a),
                  i = JSBI.__absoluteSubOne(t);
                return JSBI.__absoluteXor(o, i, o).__trim();
              }
              var u = r(e.length, t.length) + 1;
              e.sign && ((e = (n = [t, e])[0]), (t = n[1]));
              var s = JSBI.__absoluteSubOne(t, u);
              return (
                (s = JSBI.__absoluteXor(s, e, s)),
                JSBI.__absoluteAddOne(s, !0, s).__trim()
              );
            },
          },
          {
            key: "bitwiseOr",
            value: function bitwiseOr(e, t) {
              var n,
                r = (0, Math.max)(e.length, t.length);
              if (!e.sign && !t.sign) return JSBI.__absoluteOr(e, t).__trim();
              if (e.sign && t.sign) {
                var a = JSBI.__absoluteSubOne(e, r),
                  o = JSBI.__absoluteSubOne(t);
                return (
                  (a = JSBI.__absoluteAnd(a, o, a)),
                  JSBI.__absoluteAddOne(a, !0, a).__trim()
                );
              }
              e.sign && ((e = (n = [t, e])[0]), (t = n[1]));
              var i = JSBI.__absoluteSubOne(t, r);
              return (
                (i = JSBI.__absoluteAndNot(i, e, i)),
                JSBI.__absoluteAddOne(i, !0, i).__trim()
              );
            },
          },
          {
            key: "asIntN",
            value: function asIntN(e, t) {
              var n = Math.floor;
              if (0 === t.length) return t;
              if (0 > (e = n(e)))
                throw new RangeError(
                  "Invalid value: not (convertible to) a safe integer",
                );
              if (0 === e) return JSBI.__zero();
              if (e >= JSBI.__kMaxLengthBits) return t;
              var r = 0 | ((e + 29) / 30);
              if (t.length < r) return t;
              var a = t.__unsignedDigit(r - 1),
                o = 1 << (e - 1) % 30;
              if (t.length === r && a < o) return t;
              if ((a & o) !== o) return JSBI.__truncateToNBits(e, t);
              if (!t.sign) return JSBI.__truncateAndSubFromPowerOfTwo(e, t, !0);
              if (0 == (a & (o - 1))) {
                for (var i = r - 2; 0 <= i; i--)
                  if (0 !== t.__digit(i))
                    return JSBI.__truncateAndSubFromPowerOfTwo(e, t, !1);
                return t.length === r && a === o
                  ? t
                  : JSBI.__truncateToNBits(e, t);
              }
              return JSBI.__truncateAndSubFromPowerOfTwo(e, t, !1);
            },
          },
          {
            key: "asUintN",
            value: function asUintN(e, t) {
              var n = Math.floor;
              if (0 === t.length) return t;
              if (0 > (e = n(e)))
                throw new RangeError(
                  "Invalid value: not (convertible to) a safe integer",
                );
              if (0 === e) return JSBI.__zero();
              if (t.sign) {
                if (e > JSBI.__kMaxLengthBits)
                  throw new RangeError("BigInt too big");
                return JSBI.__truncateAndSubFromPowerOfTwo(e, t, !1);
              }
              if (e >= JSBI.__kMaxLengthBits) return t;
              var r = 0 | ((e + 29) / 30);
              if (t.length < r) return t;
              var a = e % 30;
              if (t.length == r) {
                if (0 === a) return t;
                if (0 == t.__digit(r - 1) >>> a) return t;
              }
              return JSBI.__truncateToNBits(e, t);
            },
          },
          {
            key: "ADD",
            value: function ADD(e, t) {
              if (
                ((e = JSBI.__toPrimitive(e)),
                (t = JSBI.__toPrimitive(t)),
                "string" == typeof e)
              )
                return ("string" != typeof t && (t = t.toString()), e + t);
              if ("string" == typeof t) return e.toString() + t;
              if (
                ((e = JSBI.__toNumeric(e)),
                (t = JSBI.__toNumeric(t)),
                JSBI.__isBigInt(e) && JSBI.__isBigInt(t))
              )
                return JSBI.add(e, t);
              if ("number" == typeof e && "number" == typeof t) return e + t;
              throw new TypeError(
                "Cannot mix BigInt and other types, use explicit conversions",
              );
            },
          },
          {
            key: "LT",
            value: function LT(e, t) {
              return JSBI.__compare(e, t, 0);
            },
          },
          {
            key: "LE",
            value: function LE(e, t) {
              return JSBI.__compare(e, t, 1);
            },
          },
          {
            key: "GT",
            value: function GT(e, t) {
              return JSBI.__compare(e, t, 2);
            },
          },
          {
            key: "GE",
            value: function GE(e, t) {
              return JSBI.__compare(e, t, 3);
            },
          },
          {
            key: "EQ",
            value: function EQ(e, t) {
              for (;;) {
                if (JSBI.__isBigInt(e))
                  return JSBI.__isBigInt(t) ? JSBI.equal(e, t) : JSBI.EQ(t, e);
                if ("number" == typeof e) {
                  if (JSBI.__isBigInt(t)) return JSBI.__equalToNumber(t, e);
                  if ("object" != _typeof(t)) return e == t;
                  t = JSBI.__toPrimitive(t);
                } else if ("string" == typeof e) {
                  if (JSBI.__isBigInt(t))
                    return (
                      null !== (e = JSBI.__fromString(e)) && JSBI.equal(e, t)
                    );
                  if ("object" != _typeof(t)) return e == t;
                  t = JSBI.__toPrimitive(t);
                } else if ("boolean" == typeof e) {
                  if (JSBI.__isBigInt(t)) return JSBI.__equalToNumber(t, +e);
                  if ("object" != _typeof(t)) return e == t;
                  t = JSBI.__toPrimitive(t);
                } else if ("symbol" == _typeof(e)) {
                  if (JSBI.__isBigInt(t)) return !1;
                  if ("object" != _typeof(t)) return e == t;
                  t = JSBI.__toPrimitive(t);
                } else {
                  if ("object" != _typeof(e)) return e == t;
                  if ("object" == _typeof(t) && t.constructor !== JSBI)
                    return e == t;
                  e = JSBI.__toPrimitive(e);
                }
              }
            },
          },
          {
            key: "NE",
            value: function NE(e, t) {
              return !JSBI.EQ(e, t);
            },
          },
          {
            key: "DataViewGetBigInt64",
            value: function DataViewGetBigInt64(e, t) {
              var n =
                arguments.length > 2 && void 0 !== arguments[2] && arguments[2];
              return JSBI.asIntN(64, JSBI.DataViewGetBigUint64(e, t, n));
            },
          },
          {
            key: "DataViewGetBigUint64",
            value: function DataViewGetBigUint64(e, t) {
              var n =
                  arguments.length > 2 &&
                  void 0 !== arguments[2] &&
                  arguments[2],
                r = _slicedToArray(n ? [4, 0] : [0, 4], 2),
                a = r[0],
                o = r[1],
                i = e.getUint32(t + a, n),
                u = e.getUint32(t + o, n),
                s = new JSBI(3, !1);
              return (
                s.__setDigit(0, 1073741823 & u),
                s.__setDigit(1, ((268435455 & i) << 2) | (u >>> 30)),
                s.__setDigit(2, i >>> 28),
                s.__trim()
              );
            },
          },
          {
            key: "DataViewSetBigInt64",
            value: function DataViewSetBigInt64(e, t, n) {
              var r =
                arguments.length > 3 && void 0 !== arguments[3] && arguments[3];
              JSBI.DataViewSetBigUint64(e, t, n, r);
            },
          },
          {
            key: "DataViewSetBigUint64",
            value: function DataViewSetBigUint64(e, t, n) {
              var r =
                  arguments.length > 3 &&
                  void 0 !== arguments[3] &&
                  arguments[3],
                a = 0,
                o = 0;
              if (
                0 < (n = JSBI.asUintN(64, n)).length &&
                ((o = n.__digit(0)), 1 < n.length)
              ) {
                var i = n.__digit(1);
                ((o |= i << 30),
                  (a = i >>> 2),
                  2 < n.length && (a |= n.__digit(2) << 28));
              }
              var u = _slicedToArray(r ? [4, 0] : [0, 4], 2),
                s = u[0],
                l = u[1];
              (e.setUint32(t + s, a, r), e.setUint32(t + l, o, r));
            },
          },
          {
            key: "__zero",
            value: function __zero() {
              return new JSBI(0, !1);
            },
          },
          {
            key: "__oneDigit",
            value: function __oneDigit(e, t) {
              var n = new JSBI(1, t);
              return (n.__setDigit(0, e), n);
            },
          },
          {
            key: "__decideRounding",
            value: function __decideRounding(e, t, n, r) {
              if (0 < t) return -1;
              var a;
              if (0 > t) a = -t - 1;
              else {
                if (0 === n) return -1;
                (n--, (r = e.__digit(n)), (a = 29));
              }
              var o = 1 << a;
              if (0 == (r & o)) return -1;
              if (0 != (r & (o -= 1))) return 1;
              for (; 0 < n; ) if ((n--, 0 !== e.__digit(n))) return 1;
              return 0;
            },
          },
          {
            key: "__fromDouble",
            value: function __fromDouble(e) {
              JSBI.__kBitConversionDouble[0] = e;
              var t,
                n = (2047 & (JSBI.__kBitConversionInts[1] >>> 20)) - 1023,
                r = 1 + (0 | (n / 30)),
                a = new JSBI(r, 0 > e),
                o = (1048575 & JSBI.__kBitConversionInts[1]) | 1048576,
                i = JSBI.__kBitConversionInts[0],
                u = n % 30,
                s = 0;
              if (u < 20) {
                var l = 20 - u;
                ((s = l + 32),
                  (t = o >>> l),
                  (o = (o << (32 - l)) | (i >>> l)),
                  (i <<= 32 - l));
              } else if (20 === u) ((s = 32), (t = o), (o = i), (i = 0));
              else {
                var c = u - 20;
                ((s = 32 - c),
                  (t = (o << c) | (i >>> (32 - c))),
                  (o = i << c),
                  (i = 0));
              }
              a.__setDigit(r - 1, t);
              for (var d = r - 2; 0 <= d; d--)
                (0 < s
                  ? ((s -= 30),
                    (t = o >>> 2),
                    (o = (o << 30) | (i >>> 2)),
                    (i <<= 30))
                  : (t = 0),
                  a.__setDigit(d, t));
              return a.__trim();
            },
          },
          {
            key: "__isWhitespace",
            value: function __isWhitespace(e) {
              return (
                !!(13 >= e && 9 <= e) ||
                (159 >= e
                  ? 32 == e
                  : 131071 >= e
                    ? 160 == e || 5760 == e
                    : 196607 >= e
                      ? 10 >= (e &= 131071) ||
                        40 == e ||
                        41 == e ||
                        47 == e ||
                        95 == e ||
                        4096 == e
                      : 65279 == e)
              );
            },
          },
          {
            key: "__fromString",
            value: function __fromString(e) {
              var t =
                  arguments.length > 1 && void 0 !== arguments[1]
                    ? arguments[1]
                    : 0,
                n = 0,
                r = e.length,
                a = 0;
              if (a === r) return JSBI.__zero();
              for (var o = e.charCodeAt(a); JSBI.__isWhitespace(o); ) {
                if (++a === r) return JSBI.__zero();
                o = e.charCodeAt(a);
              }
              if (43 === o) {
                if (++a === r) return null;
                ((o = e.charCodeAt(a)), (n = 1));
              } else if (45 === o) {
                if (++a === r) return null;
                ((o = e.charCodeAt(a)), (n = -1));
              }
              if (0 === t) {
                if (((t = 10), 48 === o)) {
                  if (++a === r) return JSBI.__zero();
                  if (88 === (o = e.charCodeAt(a)) || 120 === o) {
                    if (((t = 16), ++a === r)) return null;
                    o = e.charCodeAt(a);
                  } else if (79 === o || 111 === o) {
                    if (((t = 8), ++a === r)) return null;
                    o = e.charCodeAt(a);
                  } else if (66 === o || 98 === o) {
                    if (((t = 2), ++a === r)) return null;
                    o = e.charCodeAt(a);
                  }
                }
              } else if (16 === t && 48 === o) {
                if (++a === r) return JSBI.__zero();
                if (88 === (o = e.charCodeAt(a)) || 120 === o) {
                  if (++a === r) return null;
                  o = e.charCodeAt(a);
                }
              }
              if (0 != n && 10 !== t) return null;
              for (; 48 === o; ) {
                if (++a === r) return JSBI.__zero();
                o = e.charCodeAt(a);
              }
              var i = r - a,
                u = JSBI.__kMaxBitsPerChar[t],
                s = JSBI.__kBitsPerCharTableMultiplier - 1;
              if (i > 1073741824 / u) return null;
              var l = new JSBI(
                  0 |
                    ((29 + ((u * i + s) >>> JSBI.__kBitsPerCharTableShift)) /
                      30),
                  !1,
                ),
                c = 10 > t ? t : 10,
                d = 10 < t ? t - 10 : 0;
              if (0 == (t & (t - 1))) {
                u >>= JSBI.__kBitsPerCharTableShift;
                var m = [],
                  h = [],
                  f = !1;
                do {
                  for (var p = 0, v = 0; ; ) {
                    var D = void 0;
                    if ((o - 48) >>> 0 < c) D = o - 48;
                    else {
                      if (!(((32 | o) - 97) >>> 0 < d)) {
                        f = !0;
                        break;
                      }
                      D = (32 | o) - 87;
                    }
                    if (((v += u), (p = (p << u) | D), ++a === r)) {
                      f = !0;
                      break;
                    }
                    if (((o = e.charCodeAt(a)), 30 < v + u)) break;
                  }
                  (m.push(p), h.push(v));
                } while (!f);
                JSBI.__fillFromParts(l, m, h);
              } else {
                l.__initializeDigits();
                var g = !1,
                  y = 0;
                do {
                  for (var T = 0, S = 1; ; ) {
                    var I = void 0;
                    if ((o - 48) >>> 0 < c) I = o - 48;
                    else {
                      if (!(((32 | o) - 97) >>> 0 < d)) {
                        g = !0;
                        break;
                      }
                      I = (32 | o) - 87;
                    }
                    var C = S * t;
                    if (1073741823 < C) break;
                    if (((S = C), (T = T * t + I), y++, ++a === r)) {
                      g = !0;
                      break;
                    }
                    o = e.charCodeAt(a);
                  }
                  var _ =
                    0 |
                    (((u * y +
                      (s = 30 * JSBI.__kBitsPerCharTableMultiplier - 1)) >>>
                      JSBI.__kBitsPerCharTableShift) /
                      30);
                  l.__inplaceMultiplyAdd(S, T, _);
                } while (!g);
              }
              if (a !== r) {
                if (!JSBI.__isWhitespace(o)) return null;
                for (a++; a < r; a++)
                  if (((o = e.charCodeAt(a)), !JSBI.__isWhitespace(o)))
                    return null;
              }
              return ((l.sign = -1 == n), l.__trim());
            },
          },
          {
            key: "__fillFromParts",
            value: function __fillFromParts(e, t, n) {
              for (var r = 0, a = 0, o = 0, i = t.length - 1; 0 <= i; i--) {
                var u = t[i],
                  s = n[i];
                ((a |= u << o),
                  30 === (o += s)
                    ? (e.__setDigit(r++, a), (o = 0), (a = 0))
                    : 30 < o &&
                      (e.__setDigit(r++, 1073741823 & a),
                      (a = u >>> (s - (o -= 30)))));
              }
              if (0 !== a) {
                if (r >= e.length) throw new Error("implementation bug");
                e.__setDigit(r++, a);
              }
              for (; r < e.length; r++) e.__setDigit(r, 0);
            },
          },
          {
            key: "__toStringBasePowerOfTwo",
            value: function __toStringBasePowerOfTwo(e, t) {
              var n = e.length,
                r = t - 1,
                a = (r =
                  (15 &
                    ((r =
                      (51 & ((r = (85 & (r >>> 1)) + (85 & r)) >>> 2)) +
                      (51 & r)) >>>
                      4)) +
                  (15 & r)),
                o = t - 1,
                i = e.__digit(n - 1),
                u = 0 | ((30 * n - JSBI.__clz30(i) + a - 1) / a);
              if ((e.sign && u++, 268435456 < u))
                throw new Error("string too long");
              for (
                var s = Array(u), l = u - 1, c = 0, d = 0, m = 0;
                m < n - 1;
                m++
              ) {
                var h = e.__digit(m),
                  f = (c | (h << d)) & o;
                s[l--] = JSBI.__kConversionChars[f];
                var p = a - d;
                for (c = h >>> p, d = 30 - p; d >= a; )
                  ((s[l--] = JSBI.__kConversionChars[c & o]),
                    (c >>>= a),
                    (d -= a));
              }
              var v = (c | (i << d)) & o;
              for (
                s[l--] = JSBI.__kConversionChars[v], c = i >>> (a - d);
                0 !== c;

              )
                ((s[l--] = JSBI.__kConversionChars[c & o]), (c >>>= a));
              if ((e.sign && (s[l--] = "-"), -1 != l))
                throw new Error("implementation bug");
              return s.join("");
            },
          },
          {
            key: "__toStringGeneric",
            value: function __toStringGeneric(e, t, n) {
              var r = e.length;
              if (0 === r) return "";
              if (1 === r) {
                var a = e.__unsignedDigit(0).toString(t);
                return (!1 === n && e.sign && (a = "-" + a), a);
              }
              var o,
                i,
                u = 30 * r - JSBI.__clz30(e.__digit(r - 1)),
                s = JSBI.__kMaxBitsPerChar[t] - 1,
                l = u * JSBI.__kBitsPerCharTableMultiplier,
                c = (1 + (l = 0 | ((l += s - 1) / s))) >> 1,
                d = JSBI.exponentiate(
                  JSBI.__oneDigit(t, !1),
                  JSBI.__oneDigit(c, !1),
                ),
                m = d.__unsignedDigit(0);
              if (1 === d.length && 32767 >= m) {
                (o = new JSBI(e.length, !1)).__initializeDigits();
                for (var h = 0, f = 2 * e.length - 1; 0 <= f; f--) {
                  var p = (h << 15) | e.__halfDigit(f);
                  (o.__setHalfDigit(f, 0 | (p / m)), (h = 0 | p % m));
                }
                i = h.toString(t);
              } else {
                var v = JSBI.__absoluteDivLarge(e, d, !0, !0);
                o = v.quotient;
                var D = v.remainder.__trim();
                i = JSBI.__toStringGeneric(D, t, !0);
              }
              o.__trim();
              for (var g = JSBI.__toStringGeneric(o, t, !0); i.length < c; )
                i = "0" + i;
              return (!1 === n && e.sign && (g = "-" + g), g + i);
            },
          },
          {
            key: "__unequalSign",
            value: function __unequalSign(e) {
              return e ? -1 : 1;
            },
          },
          {
            key: "__absoluteGreater",
            value: function __absoluteGreater(e) {
              return e ? -1 : 1;
            },
          },
          {
            key: "__absoluteLess",
            value: function __absoluteLess(e) {
              return e ? 1 : -1;
            },
          },
          {
            key: "__compareToBigInt",
            value: function __compareToBigInt(e, t) {
              var n = e.sign;
              if (n !== t.sign) return JSBI.__unequalSign(n);
              var r = JSBI.__absoluteCompare(e, t);
              return 0 < r
                ? JSBI.__absoluteGreater(n)
                : 0 > r
                  ? JSBI.__absoluteLess(n)
                  : 0;
            },
          },
          {
            key: "__compareToNumber",
            value: function __compareToNumber(e, t) {
              if (JSBI.__isOneDigitInt(t)) {
                var n = e.sign,
                  r = 0 > t;
                if (n !== r) return JSBI.__unequalSign(n);
                if (0 === e.length) {
                  if (r) throw new Error("implementation bug");
                  return 0 === t ? 0 : -1;
                }
                if (1 < e.length) return JSBI.__absoluteGreater(n);
                var a = Math.abs(t),
                  o = e.__unsignedDigit(0);
                return o > a
                  ? JSBI.__absoluteGreater(n)
                  : o < a
                    ? JSBI.__absoluteLess(n)
                    : 0;
              }
              return JSBI.__compareToDouble(e, t);
            },
          },
          {
            key: "__compareToDouble",
            value: function __compareToDouble(e, t) {
              if (t != t) return t;
              if (t === 1 / 0) return -1;
              if (t === -1 / 0) return 1;
              var n = e.sign;
              if (n !== 0 > t) return JSBI.__unequalSign(n);
              if (0 === t)
                throw new Error(
                  "implementation bug: should be handled elsewhere",
                );
              if (0 === e.length) return -1;
              JSBI.__kBitConversionDouble[0] = t;
              var r = 2047 & (JSBI.__kBitConversionInts[1] >>> 20);
              if (2047 == r)
                throw new Error("implementation bug: handled elsewhere");
              var a = r - 1023;
              if (0 > a) return JSBI.__absoluteGreater(n);
              var o = e.length,
                i = e.__digit(o - 1),
                u = JSBI.__clz30(i),
                s = 30 * o - u,
                l = a + 1;
              if (s < l) return JSBI.__absoluteLess(n);
              if (s > l) return JSBI.__absoluteGreater(n);
              var c = 1048576 | (1048575 & JSBI.__kBitConversionInts[1]),
                d = JSBI.__kBitConversionInts[0],
                m = 29 - u;
              if (m !== (0 | (s - 1) % 30))
                throw new Error("implementation bug");
              var h,
                f = 0;
              if (20 > m) {
                var p = 20 - m;
                ((f = p + 32),
                  (h = c >>> p),
                  (c = (c << (32 - p)) | (d >>> p)),
                  (d <<= 32 - p));
              } else if (20 === m) ((f = 32), (h = c), (c = d), (d = 0));
              else {
                var v = m - 20;
                ((f = 32 - v),
                  (h = (c << v) | (d >>> (32 - v))),
                  (c = d << v),
                  (d = 0));
              }
              if ((i >>>= 0) > (h >>>= 0)) return JSBI.__absoluteGreater(n);
              if (i < h) return JSBI.__absoluteLess(n);
              for (var D = o - 2; 0 <= D; D--) {
                0 < f
                  ? ((f -= 30),
                    (h = c >>> 2),
                    (c = (c << 30) | (d >>> 2)),
                    (d <<= 30))
                  : (h = 0);
                var g = e.__unsignedDigit(D);
                if (g > h) return JSBI.__absoluteGreater(n);
                if (g < h) return JSBI.__absoluteLess(n);
              }
              if (0 !== c || 0 !== d) {
                if (0 === f) throw new Error("implementation bug");
                return JSBI.__absoluteLess(n);
              }
              return 0;
            },
          },
          {
            key: "__equalToNumber",
            value: function __equalToNumber(e, t) {
              var n = Math.abs;
              return JSBI.__isOneDigitInt(t)
                ? 0 === t
                  ? 0 === e.length
                  : 1 === e.length &&
                    e.sign === 0 > t &&
                    e.__unsignedDigit(0) === n(t)
                : 0 === JSBI.__compareToDouble(e, t);
            },
          },
          {
            key: "__comparisonResultToBool",
            value: function __comparisonResultToBool(e, t) {
              return 0 === t
                ? 0 > e
                : 1 === t
                  ? 0 >= e
                  : 2 === t
                    ? 0 < e
                    : 3 === t
                      ? 0 <= e
                      : void 0;
            },
          },
          {
            key: "__compare",
            value: function __compare(e, t, n) {
              if (
                ((e = JSBI.__toPrimitive(e)),
                (t = JSBI.__toPrimitive(t)),
                "string" == typeof e && "string" == typeof t)
              )
                switch (n) {
                  case 0:
                    return e < t;
                  case 1:
                    return e <= t;
                  case 2:
                    return e > t;
                  case 3:
                    return e >= t;
                }
              if (JSBI.__isBigInt(e) && "string" == typeof t)
                return (
                  null !== (t = JSBI.__fromString(t)) &&
                  JSBI.__comparisonResultToBool(JSBI.__compareToBigInt(e, t), n)
                );
              if ("string" == typeof e && JSBI.__isBigInt(t))
                return (
                  null !== (e = JSBI.__fromString(e)) &&
                  JSBI.__comparisonResultToBool(JSBI.__compareToBigInt(e, t), n)
                );
              if (
                ((e = JSBI.__toNumeric(e)),
                (t = JSBI.__toNumeric(t)),
                JSBI.__isBigInt(e))
              ) {
                if (JSBI.__isBigInt(t))
                  return JSBI.__comparisonResultToBool(
                    JSBI.__compareToBigInt(e, t),
                    n,
                  );
                if ("number" != typeof t) throw new Error("implementation bug");
                return JSBI.__comparisonResultToBool(
                  JSBI.__compareToNumber(e, t),
                  n,
                );
              }
              if ("number" != typeof e) throw new Error("implementation bug");
              if (JSBI.__isBigInt(t))
                return JSBI.__comparisonResultToBool(
                  JSBI.__compareToNumber(t, e),
                  2 ^ n,
                );
              if ("number" != typeof t) throw new Error("implementation bug");
              return 0 === n
                ? e < t
                : 1 === n
                  ? e <= t
                  : 2 === n
                    ? e > t
                    : 3 === n
                      ? e >= t
                      : void 0;
            },
          },
          {
            key: "__absoluteAdd",
            value: function __absoluteAdd(e, t, n) {
              if (e.length < t.length) return JSBI.__absoluteAdd(t, e, n);
              if (0 === e.length) return e;
              if (0 === t.length) return e.sign === n ? e : JSBI.unaryMinus(e);
              var r = e.length;
              (0 === e.__clzmsd() ||
                (t.length === e.length && 0 === t.__clzmsd())) &&
                r++;
              for (var a = new JSBI(r, n), o = 0, i = 0; i < t.length; i++) {
                var u = e.__digit(i) + t.__digit(i) + o;
                ((o = u >>> 30), a.__setDigit(i, 1073741823 & u));
              }
              for (; i < e.length; i++) {
                var s = e.__digit(i) + o;
                ((o = s >>> 30), a.__setDigit(i, 1073741823 & s));
              }
              return (i < a.length && a.__setDigit(i, o), a.__trim());
            },
          },
          {
            key: "__absoluteSub",
            value: function __absoluteSub(e, t, n) {
              if (0 === e.length) return e;
              if (0 === t.length) return e.sign === n ? e : JSBI.unaryMinus(e);
              for (
                var r = new JSBI(e.length, n), a = 0, o = 0;
                o < t.length;
                o++
              ) {
                var i = e.__digit(o) - t.__digit(o) - a;
                ((a = 1 & (i >>> 30)), r.__setDigit(o, 1073741823 & i));
              }
              for (; o < e.length; o++) {
                var u = e.__digit(o) - a;
                ((a = 1 & (u >>> 30)), r.__setDigit(o, 1073741823 & u));
              }
              return r.__trim();
            },
          },
          {
            key: "__absoluteAddOne",
            value: function __absoluteAddOne(e, t) {
              var n =
                  arguments.length > 2 && void 0 !== arguments[2]
                    ? arguments[2]
                    : null,
                r = e.length;
              null === n ? (n = new JSBI(r, t)) : (n.sign = t);
              for (var a = 1, o = 0; o < r; o++) {
                var i = e.__digit(o) + a;
                ((a = i >>> 30), n.__setDigit(o, 1073741823 & i));
              }
              return (0 != a && n.__setDigitGrow(r, 1), n);
            },
          },
          {
            key: "__absoluteSubOne",
            value: function __absoluteSubOne(e, t) {
              for (
                var n = e.length, r = new JSBI((t = t || n), !1), a = 1, o = 0;
                o < n;
                o++
              ) {
                var i = e.__digit(o) - a;
                ((a = 1 & (i >>> 30)), r.__setDigit(o, 1073741823 & i));
              }
              if (0 != a) throw new Error("implementation bug");
              for (var u = n; u < t; u++) r.__setDigit(u, 0);
              return r;
            },
          },
          {
            key: "__absoluteAnd",
            value: function __absoluteAnd(e, t) {
              var n =
                  arguments.length > 2 && void 0 !== arguments[2]
                    ? arguments[2]
                    : null,
                r = e.length,
                a = t.length,
                o = a;
              if (r < a) {
                o = r;
                var i = e,
                  u = r;
                ((e = t), (r = a), (t = i), (a = u));
              }
              var s = o;
              null === n ? (n = new JSBI(s, !1)) : (s = n.length);
              for (var l = 0; l < o; l++)
                n.__setDigit(l, e.__digit(l) & t.__digit(l));
              for (; l < s; l++) n.__setDigit(l, 0);
              return n;
            },
          },
          {
            key: "__absoluteAndNot",
            value: function __absoluteAndNot(e, t) {
              var n =
                  arguments.length > 2 && void 0 !== arguments[2]
                    ? arguments[2]
                    : null,
                r = e.length,
                a = t.length,
                o = a;
              r < a && (o = r);
              var i = r;
              null === n ? (n = new JSBI(i, !1)) : (i = n.length);
              for (var u = 0; u < o; u++)
                n.__setDigit(u, e.__digit(u) & ~t.__digit(u));
              for (; u < r; u++) n.__setDigit(u, e.__digit(u));
              for (; u < i; u++) n.__setDigit(u, 0);
              return n;
            },
          },
          {
            key: "__absoluteOr",
            value: function __absoluteOr(e, t) {
              var n =
                  arguments.length > 2 && void 0 !== arguments[2]
                    ? arguments[2]
                    : null,
                r = e.length,
                a = t.length,
                o = a;
              if (r < a) {
                o = r;
                var i = e,
                  u = r;
                ((e = t), (r = a), (t = i), (a = u));
              }
              var s = r;
              null === n ? (n = new JSBI(s, !1)) : (s = n.length);
              for (var l = 0; l < o; l++)
                n.__setDigit(l, e.__digit(l) | t.__digit(l));
              for (; l < r; l++) n.__setDigit(l, e.__digit(l));
              for (; l < s; l++) n.__setDigit(l, 0);
              return n;
            },
          },
          {
            key: "__absoluteXor",
            value: function __absoluteXor(e, t) {
              var n =
                  arguments.length > 2 && void 0 !== arguments[2]
                    ? arguments[2]
                    : null,
                r = e.length,
                a = t.length,
                o = a;
              if (r < a) {
                o = r;
                var i = e,
                  u = r;
                ((e = t), (r = a), (t = i), (a = u));
              }
              var s = r;
              null === n ? (n = new JSBI(s, !1)) : (s = n.length);
              for (var l = 0; l < o; l++)
                n.__setDigit(l, e.__digit(l) ^ t.__digit(l));
              for (; l < r; l++) n.__setDigit(l, e.__digit(l));
              for (; l < s; l++) n.__setDigit(l, 0);
              return n;
            },
          },
          {
            key: "__absoluteCompare",
            value: function __absoluteCompare(e, t) {
              var n = e.length - t.length;
              if (0 != n) return n;
              for (
                var r = e.length - 1;
                0 <= r && e.__digit(r) === t.__digit(r);

              )
                r--;
              return 0 > r
                ? 0
                : e.__unsignedDigit(r) > t.__unsignedDigit(r)
                  ? 1
                  : -1;
            },
          },
          {
            key: "__multiplyAccumulate",
            value: function __multiplyAccumulate(e, t, n, r) {
              if (0 !== t) {
                for (
                  var a, o = 32767 & t, i = t >>> 15, u = 0, s = 0, l = 0;
                  l < e.length;
                  l++, r++
                ) {
                  a = n.__digit(r);
                  var c = e.__digit(l),
                    d = 32767 & c,
                    m = c >>> 15,
                    h = JSBI.__imul(d, o),
                    f = JSBI.__imul(d, i),
                    p = JSBI.__imul(m, o);
                  ((u = (a += s + h + u) >>> 30),
                    (a &= 1073741823),
                    (u +=
                      (a += ((32767 & f) << 15) + ((32767 & p) << 15)) >>> 30),
                    (s = JSBI.__imul(m, i) + (f >>> 15) + (p >>> 15)),
                    n.__setDigit(r, 1073741823 & a));
                }
                for (; 0 != u || 0 !== s; r++) {
                  var v = n.__digit(r);
                  ((v += u + s),
                    (s = 0),
                    (u = v >>> 30),
                    n.__setDigit(r, 1073741823 & v));
                }
              }
            },
          },
          {
            key: "__internalMultiplyAdd",
            value: function __internalMultiplyAdd(e, t, n, r, a) {
              for (var o = n, i = 0, u = 0; u < r; u++) {
                var s = e.__digit(u),
                  l = JSBI.__imul(32767 & s, t),
                  c = JSBI.__imul(s >>> 15, t),
                  d = l + ((32767 & c) << 15) + i + o;
                ((o = d >>> 30),
                  (i = c >>> 15),
                  a.__setDigit(u, 1073741823 & d));
              }
              if (a.length > r)
                for (a.__setDigit(r++, o + i); r < a.length; )
                  a.__setDigit(r++, 0);
              else if (0 !== o + i) throw new Error("implementation bug");
            },
          },
          {
            key: "__absoluteDivSmall",
            value: function __absoluteDivSmall(e, t) {
              var n =
                arguments.length > 2 && void 0 !== arguments[2]
                  ? arguments[2]
                  : null;
              null === n && (n = new JSBI(e.length, !1));
              for (var r, a = 0, o = 2 * e.length - 1; 0 <= o; o -= 2) {
                var i = 0 | ((r = ((a << 15) | e.__halfDigit(o)) >>> 0) / t),
                  u =
                    0 |
                    ((r =
                      (((a = 0 | r % t) << 15) | e.__halfDigit(o - 1)) >>> 0) /
                      t);
                ((a = 0 | r % t), n.__setDigit(o >>> 1, (i << 15) | u));
              }
              return n;
            },
          },
          {
            key: "__absoluteModSmall",
            value: function __absoluteModSmall(e, t) {
              for (var n = 0, r = 2 * e.length - 1; 0 <= r; r--)
                n = 0 | (((n << 15) | e.__halfDigit(r)) >>> 0) % t;
              return n;
            },
          },
          {
            key: "__absoluteDivLarge",
            value: function __absoluteDivLarge(e, t, n, r) {
              var a = t.__halfDigitLength(),
                o = t.length,
                i = e.__halfDigitLength() - a,
                u = null;
              n && (u = new JSBI((i + 2) >>> 1, !1)).__initializeDigits();
              var s = new JSBI((a + 2) >>> 1, !1);
              s.__initializeDigits();
              var l = JSBI.__clz15(t.__halfDigit(a - 1));
              0 < l && (t = JSBI.__specialLeftShift(t, l, 0));
              for (
                var c,
                  d = JSBI.__specialLeftShift(e, l, 1),
                  m = t.__halfDigit(a - 1),
                  h = 0,
                  f = i;
                0 <= f;
                f--
              ) {
                c = 32767;
                var p = d.__halfDigit(f + a);
                if (p !== m) {
                  var v = ((p << 15) | d.__halfDigit(f + a - 1)) >>> 0;
                  c = 0 | (v / m);
                  for (
                    var D = 0 | v % m,
                      g = t.__halfDigit(a - 2),
                      y = d.__halfDigit(f + a - 2);
                    JSBI.__imul(c, g) >>> 0 > ((D << 16) | y) >>> 0 &&
                    (c--, !(32767 < (D += m)));

                  );
                }
                JSBI.__internalMultiplyAdd(t, c, 0, o, s);
                var T = d.__inplaceSub(s, f, a + 1);
                (0 !== T &&
                  ((T = d.__inplaceAdd(t, f, a)),
                  d.__setHalfDigit(f + a, 32767 & (d.__halfDigit(f + a) + T)),
                  c--),
                  n && (1 & f ? (h = c << 15) : u.__setDigit(f >>> 1, h | c)));
              }
              if (r)
                return (
                  d.__inplaceRightShift(l),
                  n ? { quotient: u, remainder: d } : d
                );
              if (n) return u;
              throw new Error("unreachable");
            },
          },
          {
            key: "__clz15",
            value: function __clz15(e) {
              return JSBI.__clz30(e) - 15;
            },
          },
          {
            key: "__specialLeftShift",
            value: function __specialLeftShift(e, t, n) {
              var r = e.length,
                a = new JSBI(r + n, !1);
              if (0 === t) {
                for (var o = 0; o < r; o++) a.__setDigit(o, e.__digit(o));
                return (0 < n && a.__setDigit(r, 0), a);
              }
              for (var i = 0, u = 0; u < r; u++) {
                var s = e.__digit(u);
                (a.__setDigit(u, (1073741823 & (s << t)) | i),
                  (i = s >>> (30 - t)));
              }
              return (0 < n && a.__setDigit(r, i), a);
            },
          },
          {
            key: "__leftShiftByAbsolute",
            value: function __leftShiftByAbsolute(e, t) {
              var n = JSBI.__toShiftAmount(t);
              if (0 > n) throw new RangeError("BigInt too big");
              var r = 0 | (n / 30),
                a = n % 30,
                o = e.length,
                i = 0 !== a && 0 != e.__digit(o - 1) >>> (30 - a),
                u = o + r + (i ? 1 : 0),
                s = new JSBI(u, e.sign);
              if (0 === a) {
                for (var l = 0; l < r; l++) s.__setDigit(l, 0);
                for (; l < u; l++) s.__setDigit(l, e.__digit(l - r));
              } else {
                for (var c = 0, d = 0; d < r; d++) s.__setDigit(d, 0);
                for (var m = 0; m < o; m++) {
                  var h = e.__digit(m);
                  (s.__setDigit(m + r, (1073741823 & (h << a)) | c),
                    (c = h >>> (30 - a)));
                }
                if (i) s.__setDigit(o + r, c);
                else if (0 !== c) throw new Error("implementation bug");
              }
              return s.__trim();
            },
          },
          {
            key: "__rightShiftByAbsolute",
            value: function __rightShiftByAbsolute(e, t) {
              var n = e.length,
                r = e.sign,
                a = JSBI.__toShiftAmount(t);
              if (0 > a) return JSBI.__rightShiftByMaximum(r);
              var o = 0 | (a / 30),
                i = a % 30,
                u = n - o;
              if (0 >= u) return JSBI.__rightShiftByMaximum(r);
              var s = !1;
              if (r)
                if (0 != (e.__digit(o) & ((1 << i) - 1))) s = !0;
                else
                  for (var l = 0; l < o; l++)
                    if (0 !== e.__digit(l)) {
                      s = !0;
                      break;
                    }
              s && 0 === i && 0 == ~e.__digit(n - 1) && u++;
              var c = new JSBI(u, r);
              if (0 === i) {
                c.__setDigit(u - 1, 0);
                for (var d = o; d < n; d++) c.__setDigit(d - o, e.__digit(d));
              } else {
                for (
                  var m = e.__digit(o) >>> i, h = n - o - 1, f = 0;
                  f < h;
                  f++
                ) {
                  var p = e.__digit(f + o + 1);
                  (c.__setDigit(f, (1073741823 & (p << (30 - i))) | m),
                    (m = p >>> i));
                }
                c.__setDigit(h, m);
              }
              return (s && (c = JSBI.__absoluteAddOne(c, !0, c)), c.__trim());
            },
          },
          {
            key: "__rightShiftByMaximum",
            value: function __rightShiftByMaximum(e) {
              return e ? JSBI.__oneDigit(1, !0) : JSBI.__zero();
            },
          },
          {
            key: "__toShiftAmount",
            value: function __toShiftAmount(e) {
              if (1 < e.length) return -1;
              var t = e.__unsignedDigit(0);
              return t > JSBI.__kMaxLengthBits ? -1 : t;
            },
          },
          {
            key: "__toPrimitive",
            value: function __toPrimitive(e) {
              var t =
                arguments.length > 1 && void 0 !== arguments[1]
                  ? arguments[1]
                  : "default";
              if ("object" != _typeof(e)) return e;
              if (e.constructor === JSBI) return e;
              if (
                "undefined" != typeof Symbol &&
                "symbol" == _typeof(Symbol.toPrimitive)
              ) {
                var n = e[Symbol.toPrimitive];
                if (n) {
                  var r = n(t);
                  if ("object" != _typeof(r)) return r;
                  throw new TypeError(
                    "Cannot convert object to primitive value",
                  );
                }
              }
              var a = e.valueOf;
              if (a) {
                var o = a.call(e);
                if ("object" != _typeof(o)) return o;
              }
              var i = e.toString;
              if (i) {
                var u = i.call(e);
                if ("object" != _typeof(u)) return u;
              }
              throw new TypeError("Cannot convert object to primitive value");
            },
          },
          {
            key: "__toNumeric",
            value: function __toNumeric(e) {
              return JSBI.__isBigInt(e) ? e : +e;
            },
          },
          {
            key: "__isBigInt",
            value: function __isBigInt(e) {
              return (
                "object" == _typeof(e) && null !== e && e.constructor === JSBI
              );
            },
          },
          {
            key: "__truncateToNBits",
            value: function __truncateToNBits(e, t) {
              for (
                var n = 0 | ((e + 29) / 30),
                  r = new JSBI(n, t.sign),
                  a = n - 1,
                  o = 0;
                o < a;
                o++
              )
                r.__setDigit(o, t.__digit(o));
              var i = t.__digit(a);
              if (0 != e % 30) {
                var u = 32 - (e % 30);
                i = (i << u) >>> u;
              }
              return (r.__setDigit(a, i), r.__trim());
            },
          },
          {
            key: "__truncateAndSubFromPowerOfTwo",
            value: function __truncateAndSubFromPowerOfTwo(e, t, n) {
              for (
                var r = Math.min,
                  a = 0 | ((e + 29) / 30),
                  o = new JSBI(a, n),
                  i = 0,
                  u = a - 1,
                  s = 0,
                  l = r(u, t.length);
                i < l;
                i++
              ) {
                var c = 0 - t.__digit(i) - s;
                ((s = 1 & (c >>> 30)), o.__setDigit(i, 1073741823 & c));
              }
              for (; i < u; i++) o.__setDigit(i, 0 | (1073741823 & -s));
              var d,
                m = u < t.length ? t.__digit(u) : 0,
                h = e % 30;
              if (0 == h) ((d = 0 - m - s), (d &= 1073741823));
              else {
                var f = 32 - h,
                  p = 1 << (32 - f);
                ((d = p - (m = (m << f) >>> f) - s), (d &= p - 1));
              }
              return (o.__setDigit(u, d), o.__trim());
            },
          },
          {
            key: "__digitPow",
            value: function __digitPow(e, t) {
              for (var n = 1; 0 < t; )
                (1 & t && (n *= e), (t >>>= 1), (e *= e));
              return n;
            },
          },
          {
            key: "__isOneDigitInt",
            value: function __isOneDigitInt(e) {
              return (1073741823 & e) === e;
            },
          },
        ],
      ),
      JSBI
    );
  })(_wrapNativeSuper(Array));
  ((t.__kMaxLength = 33554432),
    (t.__kMaxLengthBits = t.__kMaxLength << 5),
    (t.__kMaxBitsPerChar = [
      0, 0, 32, 51, 64, 75, 83, 90, 96, 102, 107, 111, 115, 119, 122, 126, 128,
      131, 134, 136, 139, 141, 143, 145, 147, 149, 151, 153, 154, 156, 158, 159,
      160, 162, 163, 165, 166,
    ]),
    (t.__kBitsPerCharTableShift = 5),
    (t.__kBitsPerCharTableMultiplier = 1 << t.__kBitsPerCharTableShift),
    (t.__kConversionChars = [
      "0",
      "1",
      "2",
      "3",
      "4",
      "5",
      "6",
      "7",
      "8",
      "9",
      "a",
      "b",
      "c",
      "d",
      "e",
      "f",
      "g",
      "h",
      "i",
      "j",
      "k",
      "l",
      "m",
      "n",
      "o",
      "p",
      "q",
      "r",
      "s",
      "t",
      "u",
      "v",
      "w",
      "x",
      "y",
      "z",
    ]),
    (t.__kBitConversionBuffer = new ArrayBuffer(8)),
    (t.__kBitConversionDouble = new Float64Array(t.__kBitConversionBuffer)),
    (t.__kBitConversionInts = new Int32Array(t.__kBitConversionBuffer)),
    (t.__clz30 = Math.clz32
      ? function (e) {
          return Math.clz32(e) - 2;
        }
      : function (e) {
          return 0 === e ? 30 : 0 | (29 - (0 | (Math.log(e >>> 0) / Math.LN2)));
        }),
    (t.__imul =
      Math.imul ||
      function (e, t) {
        return 0 | (e * t);
      }));
  var n,
    r,
    a = t.BigInt(0),
    o = t.BigInt(1),
    i = t.BigInt(2),
    u = t.BigInt(10),
    s = t.BigInt(24),
    l = t.BigInt(60),
    c = t.BigInt(1e3),
    d = t.BigInt(1e6),
    m = t.BigInt(1e9),
    h = t.multiply(t.BigInt(3600), m),
    f = t.multiply(l, m),
    p = t.multiply(h, s);
  function ensureJSBI(e) {
    return "bigint" == typeof e ? t.BigInt(e.toString(10)) : e;
  }
  function isEven(e) {
    return t.equal(t.remainder(e, i), a);
  }
  function abs(e) {
    return t.lessThan(e, a) ? t.unaryMinus(e) : e;
  }
  function compare(e, n) {
    return t.lessThan(e, n) ? -1 : t.greaterThan(e, n) ? 1 : 0;
  }
  function divmod(e, n) {
    return { quotient: t.divide(e, n), remainder: t.remainder(e, n) };
  }
  var v = "slot-epochNanoSeconds",
    D = "slot-iso-date",
    g = "slot-iso-date-time",
    y = "slot-time",
    T = "slot-calendar",
    S = "slot-date-brand",
    I = "slot-year-month-brand",
    C = "slot-month-day-brand",
    _ = "slot-time-zone",
    O = "slot-years",
    b = "slot-months",
    w = "slot-weeks",
    k = "slot-days",
    E = "slot-hours",
    B = "slot-minutes",
    R = "slot-seconds",
    G = "slot-milliseconds",
    M = "slot-microseconds",
    A = "slot-nanoseconds",
    P = "date",
    j = "ym",
    N = "md",
    Y = "time",
    J = "datetime",
    L = "instant",
    Z = "original",
    U = "timezone-canonical",
    x = "timezone-original",
    H = "calendar-id",
    W = "locale",
    z = "options",
    q = new WeakMap(),
    $ = Symbol.for("@@Temporal__GetSlots");
  (n = globalThis)[$] ||
    (n[$] = function _GetSlots(e) {
      return q.get(e);
    });
  var V = globalThis[$],
    K = Symbol.for("@@Temporal__CreateSlots");
  (r = globalThis)[K] ||
    (r[K] = function _CreateSlots(e) {
      q.set(e, Object.create(null));
    });
  var X,
    Q = globalThis[K];
  function HasSlot(e) {
    if (!e || "object" !== _typeof(e)) return !1;
    for (
      var t = V(e),
        n = arguments.length,
        r = new Array(n > 1 ? n - 1 : 0),
        a = 1;
      a < n;
      a++
    )
      r[a - 1] = arguments[a];
    return (
      !!t &&
      r.every(function (e) {
        return e in t;
      })
    );
  }
  function GetSlot(e, t) {
    var n,
      r = null === (n = V(e)) || void 0 === n ? void 0 : n[t];
    if (void 0 === r) throw new TypeError("Missing internal slot ".concat(t));
    return r;
  }
  function SetSlot(e, t, n) {
    var r = V(e);
    if (void 0 === r)
      throw new TypeError("Missing slots for the given container");
    if (r[t]) throw new TypeError("".concat(t, " already has set"));
    r[t] = n;
  }
  var ee = {};
  function MakeIntrinsicClass(e, t) {
    Object.defineProperty(e.prototype, Symbol.toStringTag, {
      value: t,
      writable: !1,
      enumerable: !1,
      configurable: !0,
    });
    for (var n = Object.getOwnPropertyNames(e), r = 0; r < n.length; r++) {
      var a = n[r],
        o = Object.getOwnPropertyDescriptor(e, a);
      o.configurable &&
        o.enumerable &&
        ((o.enumerable = !1), Object.defineProperty(e, a, o));
    }
    for (
      var i = Object.getOwnPropertyNames(e.prototype), u = 0;
      u < i.length;
      u++
    ) {
      var s = i[u],
        l = Object.getOwnPropertyDescriptor(e.prototype, s);
      l.configurable &&
        l.enumerable &&
        ((l.enumerable = !1), Object.defineProperty(e.prototype, s, l));
    }
    (DefineIntrinsic(t, e),
      DefineIntrinsic("".concat(t, ".prototype"), e.prototype));
  }
  function DefineIntrinsic(e, t) {
    var n = "%".concat(e, "%");
    if (void 0 !== ee[n])
      throw new Error("intrinsic ".concat(e, " already exists"));
    ee[n] = t;
  }
  function GetIntrinsic(e) {
    return ee[e];
  }
  function TruncatingDivModByPowerOf10(e, t) {
    var n = e;
    if (0 === n) return { div: n, mod: n };
    var r = Math.sign(n);
    n = Math.abs(n);
    var a = Math.trunc(1 + Math.log10(n));
    if (t >= a) return { div: 0 * r, mod: r * n };
    if (0 === t) return { div: r * n, mod: 0 * r };
    var o = n.toPrecision(a);
    return {
      div: r * Number.parseInt(o.slice(0, a - t), 10),
      mod: r * Number.parseInt(o.slice(a - t), 10),
    };
  }
  function FMAPowerOf10(e, t, n) {
    var r = e,
      a = n;
    if (0 === r) return a;
    var o = Math.sign(r) || Math.sign(a);
    ((r = Math.abs(r)), (a = Math.abs(a)));
    var i = r.toPrecision(Math.trunc(1 + Math.log10(r)));
    if (0 === a) return o * Number.parseInt(i + "0".repeat(t), 10);
    var u = i + a.toPrecision(Math.trunc(1 + Math.log10(a))).padStart(t, "0");
    return o * Number.parseInt(u, 10);
  }
  function GetUnsignedRoundingMode(e, t) {
    var n = "negative" === t;
    switch (e) {
      case "ceil":
        return n ? "zero" : "infinity";
      case "floor":
        return n ? "infinity" : "zero";
      case "expand":
        return "infinity";
      case "trunc":
        return "zero";
      case "halfCeil":
        return n ? "half-zero" : "half-infinity";
      case "halfFloor":
        return n ? "half-infinity" : "half-zero";
      case "halfExpand":
        return "half-infinity";
      case "halfTrunc":
        return "half-zero";
      case "halfEven":
        return "half-even";
    }
  }
  function ApplyUnsignedRoundingMode(e, t, n, r, a) {
    return "zero" === a
      ? e
      : "infinity" === a
        ? t
        : n < 0
          ? e
          : n > 0
            ? t
            : "half-zero" === a
              ? e
              : "half-infinity" === a
                ? t
                : r
                  ? e
                  : t;
  }
  (_defineProperty(
    (X = {}),
    "Intl.DateTimeFormat",
    function IntlDateTimeFormat(e, t, n) {
      return n(GetSlot(this, Z), _objectSpread2({ depth: e }, t));
    },
  ),
    _defineProperty(X, "Temporal.Duration", function TemporalDuration(e, t) {
      var n = t.stylize(this._repr_, "special");
      if (e < 1) return n;
      for (
        var r = [],
          a = [
            "years",
            "months",
            "weeks",
            "days",
            "hours",
            "minutes",
            "seconds",
            "milliseconds",
            "microseconds",
            "nanoseconds",
          ],
          o = 0;
        o < a.length;
        o++
      ) {
        var i = a[o];
        0 !== this[i] &&
          r.push("  ".concat(i, ": ").concat(t.stylize(this[i], "number")));
      }
      return n + " {\n" + r.join(",\n") + "\n}";
    }));
  var te = (function () {
    function TimeDuration(e) {
      (_classCallCheck(this, TimeDuration),
        (this.totalNs = ensureJSBI(e)),
        (this.sec = t.toNumber(t.divide(this.totalNs, m))),
        (this.subsec = t.toNumber(t.remainder(this.totalNs, m))));
    }
    return (
      _createClass(
        TimeDuration,
        [
          {
            key: "abs",
            value: function abs$1() {
              return new TimeDuration(abs(this.totalNs));
            },
          },
          {
            key: "add",
            value: function add(e) {
              return TimeDuration.validateNew(
                t.add(this.totalNs, e.totalNs),
                "sum",
              );
            },
          },
          {
            key: "add24HourDays",
            value: function add24HourDays(e) {
              return TimeDuration.validateNew(
                t.add(this.totalNs, t.multiply(t.BigInt(e), p)),
                "sum",
              );
            },
          },
          {
            key: "addToEpochNs",
            value: function addToEpochNs(e) {
              return t.add(ensureJSBI(e), this.totalNs);
            },
          },
          {
            key: "cmp",
            value: function cmp(e) {
              return compare(this.totalNs, e.totalNs);
            },
          },
          {
            key: "divmod",
            value: function divmod$1(e) {
              var n = divmod(this.totalNs, t.BigInt(e)),
                r = n.quotient,
                a = n.remainder;
              return {
                quotient: t.toNumber(r),
                remainder: new TimeDuration(a),
              };
            },
          },
          {
            key: "fdiv",
            value: function fdiv(e) {
              for (
                var n,
                  r = ensureJSBI(e),
                  o = t.BigInt(r),
                  i = divmod(this.totalNs, o),
                  s = i.quotient,
                  l = i.remainder,
                  c = [],
                  d =
                    (t.lessThan(this.totalNs, a) ? -1 : 1) *
                    Math.sign(t.toNumber(r));
                !t.equal(l, a) && c.length < 50;

              ) {
                var m = divmod((l = t.multiply(l, u)), o);
                ((n = m.quotient),
                  (l = m.remainder),
                  c.push(Math.abs(t.toNumber(n))));
              }
              return d * Number(abs(s).toString() + "." + c.join(""));
            },
          },
          {
            key: "isZero",
            value: function isZero() {
              return t.equal(this.totalNs, a);
            },
          },
          {
            key: "round",
            value: function round(e, n) {
              var r = ensureJSBI(e);
              if (t.equal(r, o)) return this;
              var u = divmod(this.totalNs, r),
                s = u.quotient,
                l = u.remainder,
                c = t.lessThan(this.totalNs, a) ? "negative" : "positive",
                d = t.multiply(abs(s), r),
                m = t.add(d, r),
                h = compare(abs(t.multiply(l, i)), r),
                f = GetUnsignedRoundingMode(n, c),
                p = t.equal(abs(this.totalNs), d)
                  ? d
                  : ApplyUnsignedRoundingMode(d, m, h, isEven(s), f),
                v = "positive" === c ? p : t.unaryMinus(p);
              return TimeDuration.validateNew(v, "rounding");
            },
          },
          {
            key: "sign",
            value: function sign() {
              return this.cmp(new TimeDuration(a));
            },
          },
          {
            key: "subtract",
            value: function subtract(e) {
              return TimeDuration.validateNew(
                t.subtract(this.totalNs, e.totalNs),
                "difference",
              );
            },
          },
        ],
        [
          {
            key: "validateNew",
            value: function validateNew(e, n) {
              if (t.greaterThan(abs(e), TimeDuration.MAX))
                throw new RangeError(
                  ""
                    .concat(n, " of duration time units cannot exceed ")
                    .concat(TimeDuration.MAX, " s"),
                );
              return new TimeDuration(e);
            },
          },
          {
            key: "fromEpochNsDiff",
            value: function fromEpochNsDiff(e, n) {
              return new TimeDuration(t.subtract(ensureJSBI(e), ensureJSBI(n)));
            },
          },
          {
            key: "fromComponents",
            value: function fromComponents(e, n, r, a, o, i) {
              var u = t.add(
                t.add(
                  t.add(
                    t.add(
                      t.add(t.BigInt(i), t.multiply(t.BigInt(o), c)),
                      t.multiply(t.BigInt(a), d),
                    ),
                    t.multiply(t.BigInt(r), m),
                  ),
                  t.multiply(t.BigInt(n), f),
                ),
                t.multiply(t.BigInt(e), h),
              );
              return TimeDuration.validateNew(u, "total");
            },
          },
        ],
      ),
      TimeDuration
    );
  })();
  ((te.MAX = t.BigInt("9007199254740991999999999")), (te.ZERO = new te(a)));
  var ne = /[A-Za-z._][A-Za-z._0-9+-]*/,
    re = new RegExp(
      "(?:"
        .concat(/(?:[+-](?:[01][0-9]|2[0-3])(?::?[0-5][0-9])?)/.source, "|(?:")
        .concat(ne.source, ")(?:\\/(?:")
        .concat(ne.source, "))*)"),
    ),
    ae = /(?:[+-]\d{6}|\d{4})/,
    oe = /(?:0[1-9]|1[0-2])/,
    ie = /(?:0[1-9]|[12]\d|3[01])/,
    ue = new RegExp(
      "("
        .concat(ae.source, ")(?:-(")
        .concat(oe.source, ")-(")
        .concat(ie.source, ")|(")
        .concat(oe.source, ")(")
        .concat(ie.source, "))"),
    ),
    se =
      /(\d{2})(?::(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?|(\d{2})(?:(\d{2})(?:[.,](\d{1,9}))?)?)?/,
    le =
      /((?:[+-])(?:[01][0-9]|2[0-3])(?::?(?:[0-5][0-9])(?::?(?:[0-5][0-9])(?:[.,](?:\d{1,9}))?)?)?)/,
    ce = new RegExp("([zZ])|".concat(le.source, "?")),
    de = /\[(!)?([a-z_][a-z0-9_-]*)=([A-Za-z0-9]+(?:-[A-Za-z0-9]+)*)\]/g,
    me = new RegExp(
      [
        "^".concat(ue.source),
        "(?:(?:[tT]|\\s+)".concat(se.source, "(?:").concat(ce.source, ")?)?"),
        "(?:\\[!?(".concat(re.source, ")\\])?"),
        "((?:".concat(de.source, ")*)$"),
      ].join(""),
    ),
    he = new RegExp(
      [
        "^[tT]?".concat(se.source),
        "(?:".concat(ce.source, ")?"),
        "(?:\\[!?".concat(re.source, "\\])?"),
        "((?:".concat(de.source, ")*)$"),
      ].join(""),
    ),
    fe = new RegExp(
      "^("
        .concat(ae.source, ")-?(")
        .concat(oe.source, ")(?:\\[!?")
        .concat(re.source, "\\])?((?:")
        .concat(de.source, ")*)$"),
    ),
    pe = new RegExp(
      "^(?:--)?("
        .concat(oe.source, ")-?(")
        .concat(ie.source, ")(?:\\[!?")
        .concat(re.source, "\\])?((?:")
        .concat(de.source, ")*)$"),
    ),
    ve = /(\d+)(?:[.,](\d{1,9}))?/,
    De = new RegExp(
      "(?:"
        .concat(ve.source, "H)?(?:")
        .concat(ve.source, "M)?(?:")
        .concat(ve.source, "S)?"),
    ),
    ge = new RegExp(
      "^([+-])?P"
        .concat(
          /(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?/.source,
          "(?:T(?!$)",
        )
        .concat(De.source, ")?$"),
      "i",
    ),
    ye = 864e5,
    Te = 1e6 * ye,
    Se = 6e10,
    Ie = 1e8 * ye,
    Ce = epochMsToNs(Ie),
    _e = t.unaryMinus(Ce),
    Oe = t.add(t.subtract(_e, p), o),
    be = t.subtract(t.add(Ce, p), o),
    we = 146097 * ye,
    Fe = -271821,
    ke = 275760,
    Ee = Date.UTC(1847, 0, 1),
    Be = [
      "iso8601",
      "hebrew",
      "islamic",
      "islamic-umalqura",
      "islamic-tbla",
      "islamic-civil",
      "islamic-rgsa",
      "islamicc",
      "persian",
      "ethiopic",
      "ethioaa",
      "ethiopic-amete-alem",
      "coptic",
      "chinese",
      "dangi",
      "roc",
      "indian",
      "buddhist",
      "japanese",
      "gregory",
    ],
    Re = new Set([
      "ACT",
      "AET",
      "AGT",
      "ART",
      "AST",
      "BET",
      "BST",
      "CAT",
      "CNT",
      "CST",
      "CTT",
      "EAT",
      "ECT",
      "IET",
      "IST",
      "JST",
      "MIT",
      "NET",
      "NST",
      "PLT",
      "PNT",
      "PRT",
      "PST",
      "SST",
      "VST",
    ]);
  function IsObject(e) {
    return ("object" === _typeof(e) && null !== e) || "function" == typeof e;
  }
  function ToNumber(e) {
    if ("bigint" == typeof e)
      throw new TypeError("Cannot convert BigInt to number");
    return Number(e);
  }
  function ToString(e) {
    if ("symbol" === _typeof(e))
      throw new TypeError("Cannot convert a Symbol value to a String");
    return String(e);
  }
  function ToIntegerWithTruncation(e) {
    var t = ToNumber(e);
    if (0 === t) return 0;
    if (Number.isNaN(t) || t === 1 / 0 || t === -1 / 0)
      throw new RangeError("invalid number value");
    var n = Math.trunc(t);
    return 0 === n ? 0 : n;
  }
  function ToPositiveIntegerWithTruncation(e, t) {
    var n = ToIntegerWithTruncation(e);
    if (n <= 0) {
      if (void 0 !== t)
        throw new RangeError(
          "property '".concat(t, "' cannot be a a number less than one"),
        );
      throw new RangeError(
        "Cannot convert a number less than one to a positive integer",
      );
    }
    return n;
  }
  function ToIntegerIfIntegral(e) {
    var t = ToNumber(e);
    if (Number.isNaN(t)) throw new RangeError("not a number");
    if (t === 1 / 0 || t === -1 / 0)
      throw new RangeError("infinity is out of range");
    if (
      !(function IsIntegralNumber(e) {
        if (
          "number" != typeof e ||
          Number.isNaN(e) ||
          e === 1 / 0 ||
          e === -1 / 0
        )
          return !1;
        var t = Math.abs(e);
        return Math.floor(t) === t;
      })(t)
    )
      throw new RangeError("unsupported fractional value ".concat(e));
    return 0 === t ? 0 : t;
  }
  function ToZeroPaddedDecimalString(e, t) {
    return String(e).padStart(t, "0");
  }
  function RequireString(e) {
    if ("string" != typeof e)
      throw new TypeError("expected a string, not ".concat(String(e)));
    return e;
  }
  function ToPrimitive(e, t) {
    if (IsObject(e)) {
      var n = null == e ? void 0 : e.toString();
      if ("string" == typeof n || "number" == typeof n) return n;
      throw new TypeError("Cannot convert object to primitive value");
    }
    return e;
  }
  var Ge = [
      "era",
      "eraYear",
      "year",
      "month",
      "monthCode",
      "day",
      "hour",
      "minute",
      "second",
      "millisecond",
      "microsecond",
      "nanosecond",
      "offset",
      "timeZone",
    ],
    Me = {
      era: ToString,
      eraYear: ToIntegerWithTruncation,
      year: ToIntegerWithTruncation,
      month: ToPositiveIntegerWithTruncation,
      monthCode: function ToSyntacticallyValidMonthCode(e) {
        var t = RequireString(ToPrimitive(e));
        if (
          t.length < 3 ||
          t.length > 4 ||
          "M" !== t[0] ||
          -1 === "0123456789".indexOf(t[1]) ||
          -1 === "0123456789".indexOf(t[2]) ||
          (t[1] + t[2] === "00" && "L" !== t[3]) ||
          ("L" !== t[3] && void 0 !== t[3])
        )
          throw new RangeError(
            "bad month code ".concat(t, "; must match M01-M99 or M00L-M99L"),
          );
        return t;
      },
      day: ToPositiveIntegerWithTruncation,
      hour: ToIntegerWithTruncation,
      minute: ToIntegerWithTruncation,
      second: ToIntegerWithTruncation,
      millisecond: ToIntegerWithTruncation,
      microsecond: ToIntegerWithTruncation,
      nanosecond: ToIntegerWithTruncation,
      offset: function ToOffsetString(e) {
        var t = RequireString(ToPrimitive(e));
        return (ParseDateTimeUTCOffset(t), t);
      },
      timeZone: ToTemporalTimeZoneIdentifier,
    },
    Ae = {
      hour: 0,
      minute: 0,
      second: 0,
      millisecond: 0,
      microsecond: 0,
      nanosecond: 0,
    },
    Pe = [
      ["years", "year", "date"],
      ["months", "month", "date"],
      ["weeks", "week", "date"],
      ["days", "day", "date"],
      ["hours", "hour", "time"],
      ["minutes", "minute", "time"],
      ["seconds", "second", "time"],
      ["milliseconds", "millisecond", "time"],
      ["microseconds", "microsecond", "time"],
      ["nanoseconds", "nanosecond", "time"],
    ],
    je = Object.fromEntries(
      Pe.map(function (e) {
        return [e[0], e[1]];
      }),
    ),
    Ne = Object.fromEntries(
      Pe.map(function (e) {
        var t = _slicedToArray(e, 2),
          n = t[0];
        return [t[1], n];
      }),
    ),
    Ye = Pe.map(function (e) {
      return _slicedToArray(e, 2)[1];
    }),
    Je = {
      day: Te,
      hour: 36e11,
      minute: 6e10,
      second: 1e9,
      millisecond: 1e6,
      microsecond: 1e3,
      nanosecond: 1,
    },
    Le = [
      "days",
      "hours",
      "microseconds",
      "milliseconds",
      "minutes",
      "months",
      "nanoseconds",
      "seconds",
      "weeks",
      "years",
    ],
    Ze = Intl.DateTimeFormat,
    Ue = new Map();
  function getIntlDateTimeFormatEnUsForTimeZone(e) {
    var t = ASCIILowercase(e),
      n = Ue.get(t);
    return (
      void 0 === n &&
        ((n = new Ze("en-us", {
          timeZone: t,
          hour12: !1,
          era: "short",
          year: "numeric",
          month: "numeric",
          day: "numeric",
          hour: "numeric",
          minute: "numeric",
          second: "numeric",
        })),
        Ue.set(t, n)),
      n
    );
  }
  function IsTemporalInstant(e) {
    return HasSlot(e, v) && !HasSlot(e, _, T);
  }
  function IsTemporalDuration(e) {
    return HasSlot(e, O, b, k, E, B, R, G, M, A);
  }
  function IsTemporalDate(e) {
    return HasSlot(e, S);
  }
  function IsTemporalTime(e) {
    return HasSlot(e, y);
  }
  function IsTemporalDateTime(e) {
    return HasSlot(e, g);
  }
  function IsTemporalYearMonth(e) {
    return HasSlot(e, I);
  }
  function IsTemporalMonthDay(e) {
    return HasSlot(e, C);
  }
  function IsTemporalZonedDateTime(e) {
    return HasSlot(e, v, _, T);
  }
  function CheckReceiver(e, t) {
    if (!t(e))
      throw new TypeError(
        "invalid receiver: method called with the wrong type of this-object",
      );
  }
  function RejectTemporalLikeObject(e) {
    if (HasSlot(e, T) || HasSlot(e, _))
      throw new TypeError(
        "with() does not support a calendar or timeZone property",
      );
    if (IsTemporalTime(e))
      throw new TypeError(
        "with() does not accept Temporal.PlainTime, use withPlainTime() instead",
      );
    if (void 0 !== e.calendar)
      throw new TypeError("with() does not support a calendar property");
    if (void 0 !== e.timeZone)
      throw new TypeError("with() does not support a timeZone property");
  }
  function FormatCalendarAnnotation(e, t) {
    return "never" === t || ("auto" === t && "iso8601" === e)
      ? ""
      : "[".concat("critical" === t ? "!" : "", "u-ca=").concat(e, "]");
  }
  function processAnnotations(e) {
    var t,
      n,
      r = !1;
    for (de.lastIndex = 0; (n = de.exec(e)); ) {
      var a = n,
        o = a[1],
        i = a[2],
        u = a[3];
      if ("u-ca" === i) {
        if (void 0 === t) ((t = u), (r = "!" === o));
        else if ("!" === o || r)
          throw new RangeError(
            "Invalid annotations in ".concat(
              e,
              ": more than one u-ca present with critical flag",
            ),
          );
      } else if ("!" === o)
        throw new RangeError(
          "Unrecognized annotation: !".concat(i, "=").concat(u),
        );
    }
    return t;
  }
  function ParseISODateTime(e) {
    var t,
      n,
      r,
      a,
      o,
      i,
      u,
      s,
      l,
      c,
      d,
      m = me.exec(e);
    if (!m) throw new RangeError("invalid RFC 9557 string: ".concat(e));
    var h = processAnnotations(m[16]),
      f = m[1];
    if ("-000000" === f)
      throw new RangeError("invalid RFC 9557 string: ".concat(e));
    var p = +f,
      v = +(null !== (t = null !== (n = m[2]) && void 0 !== n ? n : m[4]) &&
      void 0 !== t
        ? t
        : 1),
      D = +(null !== (r = null !== (a = m[3]) && void 0 !== a ? a : m[5]) &&
      void 0 !== r
        ? r
        : 1),
      g = void 0 !== m[6],
      y = +(null !== (o = m[6]) && void 0 !== o ? o : 0),
      T = +(null !== (i = null !== (u = m[7]) && void 0 !== u ? u : m[10]) &&
      void 0 !== i
        ? i
        : 0),
      S = +(null !== (s = null !== (l = m[8]) && void 0 !== l ? l : m[11]) &&
      void 0 !== s
        ? s
        : 0);
    60 === S && (S = 59);
    var I,
      C =
        (null !== (c = null !== (d = m[9]) && void 0 !== d ? d : m[12]) &&
        void 0 !== c
          ? c
          : "") + "000000000",
      _ = +C.slice(0, 3),
      O = +C.slice(3, 6),
      b = +C.slice(6, 9),
      w = !1;
    m[13] ? ((I = void 0), (w = !0)) : m[14] && (I = m[14]);
    var k = m[15];
    return (
      RejectDateTime(p, v, D, y, T, S, _, O, b),
      {
        year: p,
        month: v,
        day: D,
        time: g
          ? {
              hour: y,
              minute: T,
              second: S,
              millisecond: _,
              microsecond: O,
              nanosecond: b,
            }
          : "start-of-day",
        tzAnnotation: k,
        offset: I,
        z: w,
        calendar: h,
      }
    );
  }
  function ParseTemporalTimeString(e) {
    var t,
      n,
      r,
      a,
      o,
      i,
      u,
      s = he.exec(e);
    if (s) {
      var l, c, d, m, h, f, p;
      ((u = processAnnotations(s[10])),
        (t = +(null !== (l = s[1]) && void 0 !== l ? l : 0)),
        (n = +(null !== (c = null !== (d = s[2]) && void 0 !== d ? d : s[5]) &&
        void 0 !== c
          ? c
          : 0)),
        60 ==
          (r = +(null !==
            (m = null !== (h = s[3]) && void 0 !== h ? h : s[6]) && void 0 !== m
            ? m
            : 0)) && (r = 59));
      var v =
        (null !== (f = null !== (p = s[4]) && void 0 !== p ? p : s[7]) &&
        void 0 !== f
          ? f
          : "") + "000000000";
      if (
        ((a = +v.slice(0, 3)), (o = +v.slice(3, 6)), (i = +v.slice(6, 9)), s[8])
      )
        throw new RangeError("Z designator not supported for PlainTime");
    } else {
      var D,
        g,
        y = ParseISODateTime(e);
      if (((D = y.time), (g = y.z), (u = y.calendar), "start-of-day" === D))
        throw new RangeError("time is missing in string: ".concat(e));
      if (g) throw new RangeError("Z designator not supported for PlainTime");
      var T = D;
      ((t = T.hour),
        (n = T.minute),
        (r = T.second),
        (a = T.millisecond),
        (o = T.microsecond),
        (i = T.nanosecond));
    }
    if ((RejectTime(t, n, r, a, o, i), /[tT ][0-9][0-9]/.test(e)))
      return {
        hour: t,
        minute: n,
        second: r,
        millisecond: a,
        microsecond: o,
        nanosecond: i,
        calendar: u,
      };
    try {
      var S = ParseTemporalMonthDayString(e);
      RejectISODate(1972, S.month, S.day);
    } catch (s) {
      try {
        var I = ParseTemporalYearMonthString(e);
        RejectISODate(I.year, I.month, 1);
      } catch (e) {
        return {
          hour: t,
          minute: n,
          second: r,
          millisecond: a,
          microsecond: o,
          nanosecond: i,
          calendar: u,
        };
      }
    }
    throw new RangeError(
      "invalid RFC 9557 time-only string ".concat(e, "; may need a T prefix"),
    );
  }
  function ParseTemporalYearMonthString(e) {
    var t,
      n,
      r,
      a,
      o = fe.exec(e);
    if (o) {
      r = processAnnotations(o[3]);
      var i = o[1];
      if ("-000000" === i)
        throw new RangeError("invalid RFC 9557 string: ".concat(e));
      if (((t = +i), (n = +o[2]), (a = 1), void 0 !== r && "iso8601" !== r))
        throw new RangeError(
          "YYYY-MM format is only valid with iso8601 calendar",
        );
    } else {
      var u = ParseISODateTime(e);
      if (((t = u.year), (n = u.month), (r = u.calendar), (a = u.day), u.z))
        throw new RangeError("Z designator not supported for PlainYearMonth");
    }
    return { year: t, month: n, calendar: r, referenceISODay: a };
  }
  function ParseTemporalMonthDayString(e) {
    var t,
      n,
      r,
      a,
      o = pe.exec(e);
    if (o) {
      if (
        ((r = processAnnotations(o[3])),
        (t = +o[1]),
        (n = +o[2]),
        void 0 !== r && "iso8601" !== r)
      )
        throw new RangeError(
          "MM-DD format is only valid with iso8601 calendar",
        );
    } else {
      var i = ParseISODateTime(e);
      if (((t = i.month), (n = i.day), (r = i.calendar), (a = i.year), i.z))
        throw new RangeError("Z designator not supported for PlainMonthDay");
    }
    return { month: t, day: n, calendar: r, referenceISOYear: a };
  }
  var xe = new RegExp("^".concat(re.source, "$"), "i"),
    He = new RegExp(
      "^".concat(/([+-])([01][0-9]|2[0-3])(?::?([0-5][0-9])?)?/.source, "$"),
    );
  function throwBadTimeZoneStringError(e) {
    var t = Ke.test(e)
      ? "Seconds not allowed in offset time zone"
      : "Invalid time zone";
    throw new RangeError("".concat(t, ": ").concat(e));
  }
  function ParseTimeZoneIdentifier(e) {
    return (
      xe.test(e) || throwBadTimeZoneStringError(e),
      He.test(e)
        ? { offsetMinutes: ParseDateTimeUTCOffset(e) / 6e10 }
        : { tzName: e }
    );
  }
  function RegulateISODate(e, t, n, r) {
    var a = e,
      o = t,
      i = n;
    switch (r) {
      case "reject":
        RejectISODate(a, o, i);
        break;
      case "constrain":
        var u = ConstrainISODate(a, o, i);
        ((a = u.year), (o = u.month), (i = u.day));
    }
    return { year: a, month: o, day: i };
  }
  function RegulateTime(e, t, n, r, a, o, i) {
    var u = e,
      s = t,
      l = n,
      c = r,
      d = a,
      m = o;
    switch (i) {
      case "reject":
        RejectTime(u, s, l, c, d, m);
        break;
      case "constrain":
        ((u = ConstrainToRange(u, 0, 23)),
          (s = ConstrainToRange(s, 0, 59)),
          (l = ConstrainToRange(l, 0, 59)),
          (c = ConstrainToRange(c, 0, 999)),
          (d = ConstrainToRange(d, 0, 999)),
          (m = ConstrainToRange(m, 0, 999)));
    }
    return {
      hour: u,
      minute: s,
      second: l,
      millisecond: c,
      microsecond: d,
      nanosecond: m,
    };
  }
  function ToTemporalPartialDurationRecord(e) {
    if (!IsObject(e)) throw new TypeError("invalid duration-like");
    for (
      var t = {
          years: void 0,
          months: void 0,
          weeks: void 0,
          days: void 0,
          hours: void 0,
          minutes: void 0,
          seconds: void 0,
          milliseconds: void 0,
          microseconds: void 0,
          nanoseconds: void 0,
        },
        n = !1,
        r = 0;
      r < Le.length;
      r++
    ) {
      var a = Le[r],
        o = e[a];
      void 0 !== o && ((n = !0), (t[a] = ToIntegerIfIntegral(o)));
    }
    if (!n) throw new TypeError("invalid duration-like");
    return t;
  }
  function AdjustDateDurationRecord(e, t, n, r) {
    var a = e.years,
      o = e.months,
      i = e.weeks,
      u = e.days;
    return {
      years: a,
      months: null != r ? r : o,
      weeks: null != n ? n : i,
      days: null != t ? t : u,
    };
  }
  function CombineISODateAndTimeRecord(e, t) {
    return { isoDate: e, time: t };
  }
  function GetTemporalOverflowOption(e) {
    return GetOption(e, "overflow", ["constrain", "reject"], "constrain");
  }
  function GetTemporalDisambiguationOption(e) {
    return GetOption(
      e,
      "disambiguation",
      ["compatible", "earlier", "later", "reject"],
      "compatible",
    );
  }
  function GetRoundingModeOption(e, t) {
    return GetOption(
      e,
      "roundingMode",
      [
        "ceil",
        "floor",
        "expand",
        "trunc",
        "halfCeil",
        "halfFloor",
        "halfExpand",
        "halfTrunc",
        "halfEven",
      ],
      t,
    );
  }
  function GetTemporalOffsetOption(e, t) {
    return GetOption(e, "offset", ["prefer", "use", "ignore", "reject"], t);
  }
  function GetTemporalShowCalendarNameOption(e) {
    return GetOption(
      e,
      "calendarName",
      ["auto", "always", "never", "critical"],
      "auto",
    );
  }
  function GetTemporalRoundingIncrementOption(e) {
    var t = e.roundingIncrement;
    if (void 0 === t) return 1;
    var n = ToIntegerWithTruncation(t);
    if (n < 1 || n > 1e9)
      throw new RangeError(
        "roundingIncrement must be at least 1 and at most 1e9, not ".concat(t),
      );
    return n;
  }
  function ValidateTemporalRoundingIncrement(e, t, n) {
    var r = n ? t : t - 1;
    if (e > r)
      throw new RangeError(
        "roundingIncrement must be at least 1 and less than "
          .concat(r, ", not ")
          .concat(e),
      );
    if (t % e != 0)
      throw new RangeError(
        "Rounding increment must divide evenly into ".concat(t),
      );
  }
  function GetTemporalFractionalSecondDigitsOption(e) {
    var t = e.fractionalSecondDigits;
    if (void 0 === t) return "auto";
    if ("number" != typeof t) {
      if ("auto" !== ToString(t))
        throw new RangeError(
          "fractionalSecondDigits must be 'auto' or 0 through 9, not ".concat(
            t,
          ),
        );
      return "auto";
    }
    var n = Math.floor(t);
    if (!Number.isFinite(n) || n < 0 || n > 9)
      throw new RangeError(
        "fractionalSecondDigits must be 'auto' or 0 through 9, not ".concat(t),
      );
    return n;
  }
  function ToSecondsStringPrecisionRecord(e, t) {
    switch (e) {
      case "minute":
        return { precision: "minute", unit: "minute", increment: 1 };
      case "second":
        return { precision: 0, unit: "second", increment: 1 };
      case "millisecond":
        return { precision: 3, unit: "millisecond", increment: 1 };
      case "microsecond":
        return { precision: 6, unit: "microsecond", increment: 1 };
      case "nanosecond":
        return { precision: 9, unit: "nanosecond", increment: 1 };
    }
    switch (t) {
      case "auto":
        return { precision: t, unit: "nanosecond", increment: 1 };
      case 0:
        return { precision: t, unit: "second", increment: 1 };
      case 1:
      case 2:
      case 3:
        return {
          precision: t,
          unit: "millisecond",
          increment: Math.pow(10, 3 - t),
        };
      case 4:
      case 5:
      case 6:
        return {
          precision: t,
          unit: "microsecond",
          increment: Math.pow(10, 6 - t),
        };
      case 7:
      case 8:
      case 9:
        return {
          precision: t,
          unit: "nanosecond",
          increment: Math.pow(10, 9 - t),
        };
      default:
        throw new RangeError(
          "fractionalSecondDigits must be 'auto' or 0 through 9, not ".concat(
            t,
          ),
        );
    }
  }
  var We = Symbol("~required~");
  function GetTemporalUnitValuedOption(e, t, n, r) {
    for (
      var a =
          arguments.length > 4 && void 0 !== arguments[4] ? arguments[4] : [],
        o = [],
        i = 0;
      i < Pe.length;
      i++
    ) {
      var u = Pe[i],
        s = u[1],
        l = u[2];
      ("datetime" !== n && n !== l) || o.push(s);
    }
    o = o.concat(a);
    var c = r;
    c === We ? (c = void 0) : void 0 !== c && o.push(c);
    var d = [];
    d = d.concat(o);
    for (var m = 0; m < o.length; m++) {
      var h = o[m],
        f = Ne[h];
      void 0 !== f && d.push(f);
    }
    var p = GetOption(e, t, d, c);
    if (void 0 === p && r === We)
      throw new RangeError("".concat(t, " is required"));
    return p && p in je ? je[p] : p;
  }
  function GetTemporalRelativeToOption(e) {
    var t = e.relativeTo;
    if (void 0 === t) return {};
    var n,
      r,
      a,
      o,
      i,
      u = "option",
      s = !1;
    if (IsObject(t)) {
      if (IsTemporalZonedDateTime(t)) return { zonedRelativeTo: t };
      if (IsTemporalDate(t)) return { plainRelativeTo: t };
      if (IsTemporalDateTime(t))
        return {
          plainRelativeTo: CreateTemporalDate(
            GetSlot(t, g).isoDate,
            GetSlot(t, T),
          ),
        };
      var l = PrepareCalendarFields(
          (a = GetTemporalCalendarIdentifierWithISODefault(t)),
          t,
          ["year", "month", "monthCode", "day"],
          [
            "hour",
            "minute",
            "second",
            "millisecond",
            "microsecond",
            "nanosecond",
            "offset",
            "timeZone",
          ],
          [],
        ),
        c = InterpretTemporalDateTimeFields(a, l, "constrain");
      ((n = c.isoDate),
        (r = c.time),
        (i = l.offset),
        (o = l.timeZone),
        void 0 === i && (u = "wall"));
    } else {
      var d,
        m,
        h,
        f,
        p,
        v = ParseISODateTime(RequireString(t));
      if (
        ((h = v.year),
        (f = v.month),
        (p = v.day),
        (r = v.time),
        (a = v.calendar),
        (d = v.tzAnnotation),
        (i = v.offset),
        (m = v.z),
        d)
      )
        ((o = ToTemporalTimeZoneIdentifier(d)),
          m ? (u = "exact") : i || (u = "wall"),
          (s = !0));
      else if (m)
        throw new RangeError(
          "Z designator not supported for PlainDate relativeTo; either remove the Z or add a bracketed time zone",
        );
      (a || (a = "iso8601"),
        (a = CanonicalizeCalendar(a)),
        (n = { year: h, month: f, day: p }));
    }
    return void 0 === o
      ? { plainRelativeTo: CreateTemporalDate(n, a) }
      : {
          zonedRelativeTo: CreateTemporalZonedDateTime(
            InterpretISODateTimeOffset(
              n,
              r,
              u,
              "option" === u ? ParseDateTimeUTCOffset(i) : 0,
              o,
              "compatible",
              "reject",
              s,
            ),
            o,
            a,
          ),
        };
  }
  function DefaultTemporalLargestUnit(e) {
    return 0 !== GetSlot(e, O)
      ? "year"
      : 0 !== GetSlot(e, b)
        ? "month"
        : 0 !== GetSlot(e, w)
          ? "week"
          : 0 !== GetSlot(e, k)
            ? "day"
            : 0 !== GetSlot(e, E)
              ? "hour"
              : 0 !== GetSlot(e, B)
                ? "minute"
                : 0 !== GetSlot(e, R)
                  ? "second"
                  : 0 !== GetSlot(e, G)
                    ? "millisecond"
                    : 0 !== GetSlot(e, M)
                      ? "microsecond"
                      : "nanosecond";
  }
  function LargerOfTwoTemporalUnits(e, t) {
    return Ye.indexOf(e) > Ye.indexOf(t) ? t : e;
  }
  function IsCalendarUnit(e) {
    return "year" === e || "month" === e || "week" === e;
  }
  function TemporalUnitCategory(e) {
    return IsCalendarUnit(e) || "day" === e ? "date" : "time";
  }
  function calendarImplForID(e) {
    return GetIntrinsic("%calendarImpl%")(e);
  }
  function calendarImplForObj(e) {
    return GetIntrinsic("%calendarImpl%")(GetSlot(e, T));
  }
  function ISODateToFields(e, t) {
    var n =
        arguments.length > 2 && void 0 !== arguments[2] ? arguments[2] : "date",
      r = Object.create(null),
      a = calendarImplForID(e).isoToDate(t, {
        year: !0,
        monthCode: !0,
        day: !0,
      });
    return (
      (r.monthCode = a.monthCode),
      ("month-day" !== n && "date" !== n) || (r.day = a.day),
      ("year-month" !== n && "date" !== n) || (r.year = a.year),
      r
    );
  }
  function PrepareCalendarFields(e, t, n, r, a) {
    var o = calendarImplForID(e).extraFields(n),
      i = n.concat(r, o),
      u = Object.create(null),
      s = !1;
    i.sort();
    for (var l = 0; l < i.length; l++) {
      var c = i[l],
        d = t[c];
      if (void 0 !== d) ((s = !0), (u[c] = (0, Me[c])(d)));
      else if ("partial" !== a) {
        if (a.includes(c))
          throw new TypeError(
            "required property '".concat(c, "' missing or undefined"),
          );
        u[c] = Ae[c];
      }
    }
    if ("partial" === a && !s)
      throw new TypeError("no supported properties found");
    return u;
  }
  function ToTemporalTimeRecord(e) {
    for (
      var t =
          arguments.length > 1 && void 0 !== arguments[1]
            ? arguments[1]
            : "complete",
        n = [
          "hour",
          "microsecond",
          "millisecond",
          "minute",
          "nanosecond",
          "second",
        ],
        r = !1,
        a = Object.create(null),
        o = 0;
      o < n.length;
      o++
    ) {
      var i = n[o],
        u = e[i];
      void 0 !== u
        ? ((a[i] = ToIntegerWithTruncation(u)), (r = !0))
        : "complete" === t && (a[i] = 0);
    }
    if (!r) throw new TypeError("invalid time-like");
    return a;
  }
  function ToTemporalDate(e, t) {
    if (IsObject(e)) {
      if (IsTemporalDate(e))
        return (
          GetTemporalOverflowOption(GetOptionsObject(t)),
          CreateTemporalDate(GetSlot(e, D), GetSlot(e, T))
        );
      if (IsTemporalZonedDateTime(e)) {
        var n = GetISODateTimeFor(GetSlot(e, _), GetSlot(e, v));
        return (
          GetTemporalOverflowOption(GetOptionsObject(t)),
          CreateTemporalDate(n.isoDate, GetSlot(e, T))
        );
      }
      if (IsTemporalDateTime(e))
        return (
          GetTemporalOverflowOption(GetOptionsObject(t)),
          CreateTemporalDate(GetSlot(e, g).isoDate, GetSlot(e, T))
        );
      var r = GetTemporalCalendarIdentifierWithISODefault(e);
      return CreateTemporalDate(
        CalendarDateFromFields(
          r,
          PrepareCalendarFields(
            r,
            e,
            ["year", "month", "monthCode", "day"],
            [],
            [],
          ),
          GetTemporalOverflowOption(GetOptionsObject(t)),
        ),
        r,
      );
    }
    var a = (function ParseTemporalDateString(e) {
        return ParseISODateTime(e);
      })(RequireString(e)),
      o = a.year,
      i = a.month,
      u = a.day,
      s = a.calendar;
    if (a.z) throw new RangeError("Z designator not supported for PlainDate");
    return (
      s || (s = "iso8601"),
      (s = CanonicalizeCalendar(s)),
      GetTemporalOverflowOption(GetOptionsObject(t)),
      CreateTemporalDate({ year: o, month: i, day: u }, s)
    );
  }
  function InterpretTemporalDateTimeFields(e, t, n) {
    return CombineISODateAndTimeRecord(
      CalendarDateFromFields(e, t, n),
      RegulateTime(
        t.hour,
        t.minute,
        t.second,
        t.millisecond,
        t.microsecond,
        t.nanosecond,
        n,
      ),
    );
  }
  function ToTemporalDateTime(e, t) {
    var n, r, a;
    if (IsObject(e)) {
      if (IsTemporalDateTime(e))
        return (
          GetTemporalOverflowOption(GetOptionsObject(t)),
          CreateTemporalDateTime(GetSlot(e, g), GetSlot(e, T))
        );
      if (IsTemporalZonedDateTime(e)) {
        var o = GetISODateTimeFor(GetSlot(e, _), GetSlot(e, v));
        return (
          GetTemporalOverflowOption(GetOptionsObject(t)),
          CreateTemporalDateTime(o, GetSlot(e, T))
        );
      }
      if (IsTemporalDate(e))
        return (
          GetTemporalOverflowOption(GetOptionsObject(t)),
          CreateTemporalDateTime(
            CombineISODateAndTimeRecord(GetSlot(e, D), {
              deltaDays: 0,
              hour: 0,
              minute: 0,
              second: 0,
              millisecond: 0,
              microsecond: 0,
              nanosecond: 0,
            }),
            GetSlot(e, T),
          )
        );
      var i = InterpretTemporalDateTimeFields(
        (a = GetTemporalCalendarIdentifierWithISODefault(e)),
        PrepareCalendarFields(
          a,
          e,
          ["year", "month", "monthCode", "day"],
          [
            "hour",
            "minute",
            "second",
            "millisecond",
            "microsecond",
            "nanosecond",
          ],
          [],
        ),
        GetTemporalOverflowOption(GetOptionsObject(t)),
      );
      ((n = i.isoDate), (r = i.time));
    } else {
      var u,
        s,
        l,
        c = (function ParseTemporalDateTimeString(e) {
          return ParseISODateTime(e);
        })(RequireString(e));
      if (
        ((u = c.year),
        (s = c.month),
        (l = c.day),
        (r = c.time),
        (a = c.calendar),
        c.z)
      )
        throw new RangeError("Z designator not supported for PlainDateTime");
      ("start-of-day" === r &&
        (r = {
          deltaDays: 0,
          hour: 0,
          minute: 0,
          second: 0,
          millisecond: 0,
          microsecond: 0,
          nanosecond: 0,
        }),
        RejectDateTime(
          u,
          s,
          l,
          r.hour,
          r.minute,
          r.second,
          r.millisecond,
          r.microsecond,
          r.nanosecond,
        ),
        a || (a = "iso8601"),
        (a = CanonicalizeCalendar(a)),
        GetTemporalOverflowOption(GetOptionsObject(t)),
        (n = { year: u, month: s, day: l }));
    }
    return CreateTemporalDateTime(CombineISODateAndTimeRecord(n, r), a);
  }
  function ToTemporalDuration(e) {
    var t = GetIntrinsic("%Temporal.Duration%");
    if (IsTemporalDuration(e))
      return new t(
        GetSlot(e, O),
        GetSlot(e, b),
        GetSlot(e, w),
        GetSlot(e, k),
        GetSlot(e, E),
        GetSlot(e, B),
        GetSlot(e, R),
        GetSlot(e, G),
        GetSlot(e, M),
        GetSlot(e, A),
      );
    if (!IsObject(e))
      return (function ParseTemporalDurationString(e) {
        var t = (function ParseTemporalDurationStringRaw(e) {
            var t = ge.exec(e);
            if (!t) throw new RangeError("invalid duration: ".concat(e));
            if (
              t.every(function (e, t) {
                return t < 2 || void 0 === e;
              })
            )
              throw new RangeError("invalid duration: ".concat(e));
            var n = "-" === t[1] ? -1 : 1,
              r = void 0 === t[2] ? 0 : ToIntegerWithTruncation(t[2]) * n,
              a = void 0 === t[3] ? 0 : ToIntegerWithTruncation(t[3]) * n,
              o = void 0 === t[4] ? 0 : ToIntegerWithTruncation(t[4]) * n,
              i = void 0 === t[5] ? 0 : ToIntegerWithTruncation(t[5]) * n,
              u = void 0 === t[6] ? 0 : ToIntegerWithTruncation(t[6]) * n,
              s = t[7],
              l = t[8],
              c = t[9],
              d = t[10],
              m = t[11],
              h = 0,
              f = 0,
              p = 0;
            if (void 0 !== s) {
              var v, D, g;
              if (
                null !==
                  (v =
                    null !==
                      (D =
                        null !== (g = null != l ? l : c) && void 0 !== g
                          ? g
                          : d) && void 0 !== D
                      ? D
                      : m) &&
                void 0 !== v &&
                v
              )
                throw new RangeError(
                  "only the smallest unit can be fractional",
                );
              p =
                3600 *
                ToIntegerWithTruncation((s + "000000000").slice(0, 9)) *
                n;
            } else if (
              ((h = void 0 === l ? 0 : ToIntegerWithTruncation(l) * n),
              void 0 !== c)
            ) {
              var y;
              if (null !== (y = null != d ? d : m) && void 0 !== y && y)
                throw new RangeError(
                  "only the smallest unit can be fractional",
                );
              p =
                60 * ToIntegerWithTruncation((c + "000000000").slice(0, 9)) * n;
            } else
              ((f = void 0 === d ? 0 : ToIntegerWithTruncation(d) * n),
                void 0 !== m &&
                  (p =
                    ToIntegerWithTruncation((m + "000000000").slice(0, 9)) *
                    n));
            var T = p % 1e3,
              S = Math.trunc(p / 1e3) % 1e3,
              I = Math.trunc(p / 1e6) % 1e3;
            return (
              (f += Math.trunc(p / 1e9) % 60),
              RejectDuration(
                r,
                a,
                o,
                i,
                u,
                (h += Math.trunc(p / 6e10)),
                f,
                I,
                S,
                T,
              ),
              {
                years: r,
                months: a,
                weeks: o,
                days: i,
                hours: u,
                minutes: h,
                seconds: f,
                milliseconds: I,
                microseconds: S,
                nanoseconds: T,
              }
            );
          })(e),
          n = t.years,
          r = t.months,
          a = t.weeks,
          o = t.days,
          i = t.hours,
          u = t.minutes,
          s = t.seconds,
          l = t.milliseconds,
          c = t.microseconds,
          d = t.nanoseconds;
        return new (GetIntrinsic("%Temporal.Duration%"))(
          n,
          r,
          a,
          o,
          i,
          u,
          s,
          l,
          c,
          d,
        );
      })(RequireString(e));
    for (
      var n = {
          years: 0,
          months: 0,
          weeks: 0,
          days: 0,
          hours: 0,
          minutes: 0,
          seconds: 0,
          milliseconds: 0,
          microseconds: 0,
          nanoseconds: 0,
        },
        r = ToTemporalPartialDurationRecord(e),
        a = 0;
      a < Le.length;
      a++
    ) {
      var o = Le[a],
        i = r[o];
      void 0 !== i && (n[o] = i);
    }
    return new t(
      n.years,
      n.months,
      n.weeks,
      n.days,
      n.hours,
      n.minutes,
      n.seconds,
      n.milliseconds,
      n.microseconds,
      n.nanoseconds,
    );
  }
  function ToTemporalInstant(e) {
    var t;
    if (IsObject(e)) {
      if (IsTemporalInstant(e) || IsTemporalZonedDateTime(e))
        return CreateTemporalInstant(GetSlot(e, v));
      t = ToPrimitive(e);
    } else t = e;
    var n = (function ParseTemporalInstantString(e) {
        var t = ParseISODateTime(e);
        if (!t.z && !t.offset)
          throw new RangeError("Temporal.Instant requires a time zone offset");
        return t;
      })(RequireString(t)),
      r = n.year,
      a = n.month,
      o = n.day,
      i = n.time,
      u = n.offset,
      s = n.z,
      l = "start-of-day" === i ? {} : i,
      c = l.hour,
      d = void 0 === c ? 0 : c,
      m = l.minute,
      h = void 0 === m ? 0 : m,
      f = l.second,
      p = void 0 === f ? 0 : f,
      D = l.millisecond,
      g = void 0 === D ? 0 : D,
      y = l.microsecond,
      T = void 0 === y ? 0 : y,
      S = l.nanosecond,
      I = BalanceISODateTime(
        r,
        a,
        o,
        d,
        h,
        p,
        g,
        T,
        (void 0 === S ? 0 : S) - (s ? 0 : ParseDateTimeUTCOffset(u)),
      );
    return (
      CheckISODaysRange(I.isoDate),
      CreateTemporalInstant(GetUTCEpochNanoseconds(I))
    );
  }
  function ToTemporalMonthDay(e, t) {
    var n;
    if (IsObject(e))
      return IsTemporalMonthDay(e)
        ? (GetTemporalOverflowOption(GetOptionsObject(t)),
          CreateTemporalMonthDay(GetSlot(e, D), GetSlot(e, T)))
        : (HasSlot(e, T)
            ? (n = GetSlot(e, T))
            : (void 0 === (n = e.calendar) && (n = "iso8601"),
              (n = ToTemporalCalendarIdentifier(n))),
          CreateTemporalMonthDay(
            CalendarMonthDayFromFields(
              n,
              PrepareCalendarFields(
                n,
                e,
                ["year", "month", "monthCode", "day"],
                [],
                [],
              ),
              GetTemporalOverflowOption(GetOptionsObject(t)),
            ),
            n,
          ));
    var r = ParseTemporalMonthDayString(RequireString(e)),
      a = r.month,
      o = r.day,
      i = r.referenceISOYear,
      u = r.calendar;
    if (
      (void 0 === u && (u = "iso8601"),
      (u = CanonicalizeCalendar(u)),
      GetTemporalOverflowOption(GetOptionsObject(t)),
      "iso8601" === u)
    )
      return CreateTemporalMonthDay({ year: 1972, month: a, day: o }, u);
    var s = { year: i, month: a, day: o };
    return (
      RejectDateRange(s),
      CreateTemporalMonthDay(
        (s = CalendarMonthDayFromFields(
          u,
          ISODateToFields(u, s, "month-day"),
          "constrain",
        )),
        u,
      )
    );
  }
  function ToTemporalTime(e, t) {
    var n;
    if (IsObject(e)) {
      if (IsTemporalTime(e))
        return (
          GetTemporalOverflowOption(GetOptionsObject(t)),
          CreateTemporalTime(GetSlot(e, y))
        );
      if (IsTemporalDateTime(e))
        return (
          GetTemporalOverflowOption(GetOptionsObject(t)),
          CreateTemporalTime(GetSlot(e, g).time)
        );
      if (IsTemporalZonedDateTime(e)) {
        var r = GetISODateTimeFor(GetSlot(e, _), GetSlot(e, v));
        return (
          GetTemporalOverflowOption(GetOptionsObject(t)),
          CreateTemporalTime(r.time)
        );
      }
      var a = ToTemporalTimeRecord(e);
      n = RegulateTime(
        a.hour,
        a.minute,
        a.second,
        a.millisecond,
        a.microsecond,
        a.nanosecond,
        GetTemporalOverflowOption(GetOptionsObject(t)),
      );
    } else
      ((n = ParseTemporalTimeString(RequireString(e))),
        GetTemporalOverflowOption(GetOptionsObject(t)));
    return CreateTemporalTime(n);
  }
  function ToTimeRecordOrMidnight(e) {
    return void 0 === e
      ? {
          deltaDays: 0,
          hour: 0,
          minute: 0,
          second: 0,
          millisecond: 0,
          microsecond: 0,
          nanosecond: 0,
        }
      : GetSlot(ToTemporalTime(e), y);
  }
  function ToTemporalYearMonth(e, t) {
    if (IsObject(e)) {
      if (IsTemporalYearMonth(e))
        return (
          GetTemporalOverflowOption(GetOptionsObject(t)),
          CreateTemporalYearMonth(GetSlot(e, D), GetSlot(e, T))
        );
      var n = GetTemporalCalendarIdentifierWithISODefault(e);
      return CreateTemporalYearMonth(
        CalendarYearMonthFromFields(
          n,
          PrepareCalendarFields(n, e, ["year", "month", "monthCode"], [], []),
          GetTemporalOverflowOption(GetOptionsObject(t)),
        ),
        n,
      );
    }
    var r = ParseTemporalYearMonthString(RequireString(e)),
      a = r.year,
      o = r.month,
      i = r.referenceISODay,
      u = r.calendar;
    (void 0 === u && (u = "iso8601"),
      (u = CanonicalizeCalendar(u)),
      GetTemporalOverflowOption(GetOptionsObject(t)));
    var s = { year: a, month: o, day: i };
    return (
      RejectYearMonthRange(s),
      CreateTemporalYearMonth(
        (s = CalendarYearMonthFromFields(
          u,
          ISODateToFields(u, s, "year-month"),
          "constrain",
        )),
        u,
      )
    );
  }
  function InterpretISODateTimeOffset(e, n, r, a, o, i, u, s) {
    if ("start-of-day" === n) return GetStartOfDay(o, e);
    var l = CombineISODateAndTimeRecord(e, n);
    if ("wall" === r || "ignore" === u) return GetEpochNanosecondsFor(o, l, i);
    if ("exact" === r || "use" === u) {
      var c = BalanceISODateTime(
        e.year,
        e.month,
        e.day,
        n.hour,
        n.minute,
        n.second,
        n.millisecond,
        n.microsecond,
        n.nanosecond - a,
      );
      CheckISODaysRange(c.isoDate);
      var d = GetUTCEpochNanoseconds(c);
      return (ValidateEpochNanoseconds(d), d);
    }
    CheckISODaysRange(e);
    for (
      var m = GetUTCEpochNanoseconds(l),
        h = GetPossibleEpochNanoseconds(o, l),
        f = 0;
      f < h.length;
      f++
    ) {
      var p = h[f],
        v = t.toNumber(t.subtract(m, p)),
        D = RoundNumberToIncrement(v, 6e10, "halfExpand");
      if (v === a || (s && D === a)) return p;
    }
    if ("reject" === u) {
      var g = FormatUTCOffsetNanoseconds(a),
        y = ISODateTimeToString(l, "iso8601", "auto");
      throw new RangeError(
        "Offset ".concat(g, " is invalid for ").concat(y, " in ").concat(o),
      );
    }
    return DisambiguatePossibleEpochNanoseconds(h, o, l, i);
  }
  function ToTemporalZonedDateTime(e, t) {
    var n,
      r,
      a,
      o,
      i,
      u,
      s,
      l = !1,
      c = "option";
    if (IsObject(e)) {
      if (IsTemporalZonedDateTime(e)) {
        var d = GetOptionsObject(t);
        return (
          GetTemporalDisambiguationOption(d),
          GetTemporalOffsetOption(d, "reject"),
          GetTemporalOverflowOption(d),
          CreateTemporalZonedDateTime(
            GetSlot(e, v),
            GetSlot(e, _),
            GetSlot(e, T),
          )
        );
      }
      var m = PrepareCalendarFields(
        (i = GetTemporalCalendarIdentifierWithISODefault(e)),
        e,
        ["year", "month", "monthCode", "day"],
        [
          "hour",
          "minute",
          "second",
          "millisecond",
          "microsecond",
          "nanosecond",
          "offset",
          "timeZone",
        ],
        ["timeZone"],
      );
      ((o = m.offset), (a = m.timeZone), void 0 === o && (c = "wall"));
      var h = GetOptionsObject(t);
      ((u = GetTemporalDisambiguationOption(h)),
        (s = GetTemporalOffsetOption(h, "reject")));
      var f = InterpretTemporalDateTimeFields(
        i,
        m,
        GetTemporalOverflowOption(h),
      );
      ((n = f.isoDate), (r = f.time));
    } else {
      var p,
        D,
        g,
        y,
        S,
        I = (function ParseTemporalZonedDateTimeString(e) {
          var t = ParseISODateTime(e);
          if (!t.tzAnnotation)
            throw new RangeError(
              "Temporal.ZonedDateTime requires a time zone ID in brackets",
            );
          return t;
        })(RequireString(e));
      ((g = I.year),
        (y = I.month),
        (S = I.day),
        (r = I.time),
        (p = I.tzAnnotation),
        (o = I.offset),
        (D = I.z),
        (i = I.calendar),
        (a = ToTemporalTimeZoneIdentifier(p)),
        D ? (c = "exact") : o || (c = "wall"),
        i || (i = "iso8601"),
        (i = CanonicalizeCalendar(i)),
        (l = !0));
      var C = GetOptionsObject(t);
      ((u = GetTemporalDisambiguationOption(C)),
        (s = GetTemporalOffsetOption(C, "reject")),
        GetTemporalOverflowOption(C),
        (n = { year: g, month: y, day: S }));
    }
    var O = 0;
    return (
      "option" === c && (O = ParseDateTimeUTCOffset(o)),
      CreateTemporalZonedDateTime(
        InterpretISODateTimeOffset(n, r, c, O, a, u, s, l),
        a,
        i,
      )
    );
  }
  function CreateTemporalDateSlots(e, t, n) {
    (RejectDateRange(t),
      Q(e),
      SetSlot(e, D, t),
      SetSlot(e, T, n),
      SetSlot(e, S, !0));
  }
  function CreateTemporalDate(e, t) {
    var n = GetIntrinsic("%Temporal.PlainDate%"),
      r = Object.create(n.prototype);
    return (CreateTemporalDateSlots(r, e, t), r);
  }
  function CreateTemporalDateTimeSlots(e, t, n) {
    (RejectDateTimeRange(t), Q(e), SetSlot(e, g, t), SetSlot(e, T, n));
  }
  function CreateTemporalDateTime(e, t) {
    var n = GetIntrinsic("%Temporal.PlainDateTime%"),
      r = Object.create(n.prototype);
    return (CreateTemporalDateTimeSlots(r, e, t), r);
  }
  function CreateTemporalMonthDaySlots(e, t, n) {
    (RejectDateRange(t),
      Q(e),
      SetSlot(e, D, t),
      SetSlot(e, T, n),
      SetSlot(e, C, !0));
  }
  function CreateTemporalMonthDay(e, t) {
    var n = GetIntrinsic("%Temporal.PlainMonthDay%"),
      r = Object.create(n.prototype);
    return (CreateTemporalMonthDaySlots(r, e, t), r);
  }
  function CreateTemporalTimeSlots(e, t) {
    (Q(e), SetSlot(e, y, t));
  }
  function CreateTemporalTime(e) {
    var t = GetIntrinsic("%Temporal.PlainTime%"),
      n = Object.create(t.prototype);
    return (CreateTemporalTimeSlots(n, e), n);
  }
  function CreateTemporalYearMonthSlots(e, t, n) {
    (RejectYearMonthRange(t),
      Q(e),
      SetSlot(e, D, t),
      SetSlot(e, T, n),
      SetSlot(e, I, !0));
  }
  function CreateTemporalYearMonth(e, t) {
    var n = GetIntrinsic("%Temporal.PlainYearMonth%"),
      r = Object.create(n.prototype);
    return (CreateTemporalYearMonthSlots(r, e, t), r);
  }
  function CreateTemporalInstantSlots(e, t) {
    (ValidateEpochNanoseconds(t), Q(e), SetSlot(e, v, t));
  }
  function CreateTemporalInstant(e) {
    var t = GetIntrinsic("%Temporal.Instant%"),
      n = Object.create(t.prototype);
    return (CreateTemporalInstantSlots(n, e), n);
  }
  function CreateTemporalZonedDateTimeSlots(e, t, n, r) {
    (ValidateEpochNanoseconds(t),
      Q(e),
      SetSlot(e, v, t),
      SetSlot(e, _, n),
      SetSlot(e, T, r));
  }
  function CreateTemporalZonedDateTime(e, t) {
    var n =
        arguments.length > 2 && void 0 !== arguments[2]
          ? arguments[2]
          : "iso8601",
      r = GetIntrinsic("%Temporal.ZonedDateTime%"),
      a = Object.create(r.prototype);
    return (CreateTemporalZonedDateTimeSlots(a, e, t, n), a);
  }
  function CalendarFieldKeysPresent(e) {
    return Ge.filter(function (t) {
      return void 0 !== e[t];
    });
  }
  function CalendarMergeFields(e, t, n) {
    for (
      var r = CalendarFieldKeysPresent(n),
        a = calendarImplForID(e).fieldKeysToIgnore(r),
        o = Object.create(null),
        i = CalendarFieldKeysPresent(t),
        u = 0;
      u < Ge.length;
      u++
    ) {
      var s = void 0,
        l = Ge[u];
      (i.includes(l) && !a.includes(l) && (s = t[l]),
        r.includes(l) && (s = n[l]),
        void 0 !== s && (o[l] = s));
    }
    return o;
  }
  function CalendarDateAdd(e, t, n, r) {
    var a = calendarImplForID(e).dateAdd(t, n, r);
    return (RejectDateRange(a), a);
  }
  function CalendarDateUntil(e, t, n, r) {
    return calendarImplForID(e).dateUntil(t, n, r);
  }
  function ToTemporalCalendarIdentifier(e) {
    if (IsObject(e) && HasSlot(e, T)) return GetSlot(e, T);
    var t,
      n = RequireString(e);
    try {
      return CanonicalizeCalendar(n);
    } catch (e) {}
    try {
      t = ParseISODateTime(n).calendar;
    } catch (e) {
      try {
        t = ParseTemporalTimeString(n).calendar;
      } catch (e) {
        try {
          t = ParseTemporalYearMonthString(n).calendar;
        } catch (e) {
          t = ParseTemporalMonthDayString(n).calendar;
        }
      }
    }
    return (t || (t = "iso8601"), CanonicalizeCalendar(t));
  }
  function GetTemporalCalendarIdentifierWithISODefault(e) {
    if (HasSlot(e, T)) return GetSlot(e, T);
    var t = e.calendar;
    return void 0 === t ? "iso8601" : ToTemporalCalendarIdentifier(t);
  }
  function CalendarEquals(e, t) {
    return CanonicalizeCalendar(e) === CanonicalizeCalendar(t);
  }
  function CalendarDateFromFields(e, t, n) {
    var r = calendarImplForID(e);
    r.resolveFields(t, "date");
    var a = r.dateToISO(t, n);
    return (RejectDateRange(a), a);
  }
  function CalendarYearMonthFromFields(e, t, n) {
    var r = calendarImplForID(e);
    (r.resolveFields(t, "year-month"), (t.day = 1));
    var a = r.dateToISO(t, n);
    return (RejectYearMonthRange(a), a);
  }
  function CalendarMonthDayFromFields(e, t, n) {
    var r = calendarImplForID(e);
    r.resolveFields(t, "month-day");
    var a = r.monthDayToISOReferenceDate(t, n);
    return (RejectDateRange(a), a);
  }
  function ToTemporalTimeZoneIdentifier(e) {
    if (IsObject(e) && IsTemporalZonedDateTime(e)) return GetSlot(e, _);
    var t = RequireString(e);
    if ("UTC" === t) return "UTC";
    var n = (function ParseTemporalTimeZoneString(e) {
        var t = (function ParseTemporalTimeZoneStringRaw(e) {
            if (xe.test(e)) return { tzAnnotation: e, offset: void 0, z: !1 };
            try {
              var t = ParseISODateTime(e),
                n = t.tzAnnotation,
                r = t.offset,
                a = t.z;
              if (a || n || r) return { tzAnnotation: n, offset: r, z: a };
            } catch (e) {}
            throwBadTimeZoneStringError(e);
          })(e),
          n = t.tzAnnotation,
          r = t.offset,
          a = t.z;
        return n
          ? ParseTimeZoneIdentifier(n)
          : a
            ? ParseTimeZoneIdentifier("UTC")
            : r
              ? ParseTimeZoneIdentifier(r)
              : void 0;
      })(t),
      r = n.tzName,
      a = n.offsetMinutes;
    if (void 0 !== a) return FormatOffsetTimeZoneIdentifier(a);
    var o = GetAvailableNamedTimeZoneIdentifier(r);
    if (!o) throw new RangeError("Unrecognized time zone ".concat(r));
    return o.identifier;
  }
  function TimeZoneEquals(e, t) {
    if (e === t) return !0;
    var n = ParseTimeZoneIdentifier(e).offsetMinutes,
      r = ParseTimeZoneIdentifier(t).offsetMinutes;
    if (void 0 === n && void 0 === r) {
      var a = GetAvailableNamedTimeZoneIdentifier(t);
      if (!a) return !1;
      var o = GetAvailableNamedTimeZoneIdentifier(e);
      return !!o && o.primaryIdentifier === a.primaryIdentifier;
    }
    return n === r;
  }
  function GetOffsetNanosecondsFor(e, t) {
    var n = ParseTimeZoneIdentifier(e).offsetMinutes;
    return void 0 !== n ? 6e10 * n : GetNamedTimeZoneOffsetNanoseconds(e, t);
  }
  function FormatUTCOffsetNanoseconds(e) {
    var t = e < 0 ? "-" : "+",
      n = Math.abs(e),
      r = Math.floor(n / 36e11),
      a = Math.floor(n / 6e10) % 60,
      o = Math.floor(n / 1e9) % 60,
      i = n % 1e9,
      u = FormatTimeString(r, a, o, i, 0 === o && 0 === i ? "minute" : "auto");
    return "".concat(t).concat(u);
  }
  function GetISODateTimeFor(e, t) {
    var n = GetOffsetNanosecondsFor(e, t),
      r = GetISOPartsFromEpoch(t),
      a = r.isoDate,
      o = a.year,
      i = a.month,
      u = a.day,
      s = r.time;
    return BalanceISODateTime(
      o,
      i,
      u,
      s.hour,
      s.minute,
      s.second,
      s.millisecond,
      s.microsecond,
      s.nanosecond + n,
    );
  }
  function GetEpochNanosecondsFor(e, t, n) {
    return DisambiguatePossibleEpochNanoseconds(
      GetPossibleEpochNanoseconds(e, t),
      e,
      t,
      n,
    );
  }
  function DisambiguatePossibleEpochNanoseconds(e, n, r, a) {
    var o = e.length;
    if (1 === o) return e[0];
    if (o)
      switch (a) {
        case "compatible":
        case "earlier":
          return e[0];
        case "later":
          return e[o - 1];
        case "reject":
          throw new RangeError("multiple instants found");
      }
    if ("reject" === a) throw new RangeError("multiple instants found");
    var i = GetUTCEpochNanoseconds(r),
      u = t.subtract(i, p);
    ValidateEpochNanoseconds(u);
    var s = GetOffsetNanosecondsFor(n, u),
      l = t.add(i, p);
    ValidateEpochNanoseconds(l);
    var c = GetOffsetNanosecondsFor(n, l) - s;
    switch (a) {
      case "earlier":
        var d = te.fromComponents(0, 0, 0, 0, 0, -c),
          m = AddTime(r.time, d);
        return GetPossibleEpochNanoseconds(
          n,
          CombineISODateAndTimeRecord(
            BalanceISODate(
              r.isoDate.year,
              r.isoDate.month,
              r.isoDate.day + m.deltaDays,
            ),
            m,
          ),
        )[0];
      case "compatible":
      case "later":
        var h = te.fromComponents(0, 0, 0, 0, 0, c),
          f = AddTime(r.time, h),
          v = GetPossibleEpochNanoseconds(
            n,
            CombineISODateAndTimeRecord(
              BalanceISODate(
                r.isoDate.year,
                r.isoDate.month,
                r.isoDate.day + f.deltaDays,
              ),
              f,
            ),
          );
        return v[v.length - 1];
    }
  }
  function GetPossibleEpochNanoseconds(e, n) {
    if ("UTC" === e)
      return (CheckISODaysRange(n.isoDate), [GetUTCEpochNanoseconds(n)]);
    var r = ParseTimeZoneIdentifier(e).offsetMinutes;
    if (void 0 !== r) {
      var a = BalanceISODateTime(
        n.isoDate.year,
        n.isoDate.month,
        n.isoDate.day,
        n.time.hour,
        n.time.minute - r,
        n.time.second,
        n.time.millisecond,
        n.time.microsecond,
        n.time.nanosecond,
      );
      CheckISODaysRange(a.isoDate);
      var o = GetUTCEpochNanoseconds(a);
      return (ValidateEpochNanoseconds(o), [o]);
    }
    return (
      CheckISODaysRange(n.isoDate),
      (function GetNamedTimeZoneEpochNanoseconds(e, n) {
        var r = GetUTCEpochNanoseconds(n),
          a = t.subtract(r, p);
        t.lessThan(a, _e) && (a = r);
        var o = t.add(r, p);
        t.greaterThan(o, Ce) && (o = r);
        var i = GetNamedTimeZoneOffsetNanoseconds(e, a),
          u = GetNamedTimeZoneOffsetNanoseconds(e, o),
          s = (i === u ? [i] : [i, u]).map(function (a) {
            var o = t.subtract(r, t.BigInt(a)),
              i = (function GetNamedTimeZoneDateTimeParts(e, t) {
                var n = GetISOPartsFromEpoch(t),
                  r = n.epochMilliseconds,
                  a = n.time,
                  o = a.millisecond,
                  i = a.microsecond,
                  u = a.nanosecond,
                  s = GetFormatterParts(e, r);
                return BalanceISODateTime(
                  s.year,
                  s.month,
                  s.day,
                  s.hour,
                  s.minute,
                  s.second,
                  o,
                  i,
                  u,
                );
              })(e, o);
            if (0 === CompareISODateTime(n, i))
              return (ValidateEpochNanoseconds(o), o);
          });
        return s.filter(function (e) {
          return void 0 !== e;
        });
      })(e, n)
    );
  }
  function GetStartOfDay(e, n) {
    var r = CombineISODateAndTimeRecord(n, {
        deltaDays: 0,
        hour: 0,
        minute: 0,
        second: 0,
        millisecond: 0,
        microsecond: 0,
        nanosecond: 0,
      }),
      a = GetPossibleEpochNanoseconds(e, r);
    if (a.length) return a[0];
    var o = GetUTCEpochNanoseconds(r),
      i = t.subtract(o, p);
    return (ValidateEpochNanoseconds(i), GetNamedTimeZoneNextTransition(e, i));
  }
  function ISOYearString(e) {
    return e < 0 || e > 9999
      ? (e < 0 ? "-" : "+") + ToZeroPaddedDecimalString(Math.abs(e), 6)
      : ToZeroPaddedDecimalString(e, 4);
  }
  function ISODateTimePartString(e) {
    return ToZeroPaddedDecimalString(e, 2);
  }
  function FormatFractionalSeconds(e, t) {
    var n;
    if ("auto" === t) {
      if (0 === e) return "";
      n = ToZeroPaddedDecimalString(e, 9).replace(/0+$/, "");
    } else {
      if (0 === t) return "";
      n = ToZeroPaddedDecimalString(e, 9).slice(0, t);
    }
    return ".".concat(n);
  }
  function FormatTimeString(e, t, n, r, a) {
    var o = ""
      .concat(ISODateTimePartString(e), ":")
      .concat(ISODateTimePartString(t));
    return "minute" === a
      ? o
      : ((o += ":".concat(ISODateTimePartString(n))),
        (o += FormatFractionalSeconds(r, a)));
  }
  function TemporalInstantToString(e, t, n) {
    var r = t;
    void 0 === r && (r = "UTC");
    var a = GetSlot(e, v),
      o = ISODateTimeToString(GetISODateTimeFor(r, a), "iso8601", n, "never"),
      i = "Z";
    return (
      void 0 !== t &&
        (i = FormatDateTimeUTCOffsetRounded(GetOffsetNanosecondsFor(r, a))),
      "".concat(o).concat(i)
    );
  }
  function TemporalDurationToString(e, t) {
    var n = GetSlot(e, O),
      r = GetSlot(e, b),
      a = GetSlot(e, w),
      o = GetSlot(e, k),
      i = GetSlot(e, E),
      u = GetSlot(e, B),
      s = DurationSign(e),
      l = "";
    (0 !== n && (l += "".concat(Math.abs(n), "Y")),
      0 !== r && (l += "".concat(Math.abs(r), "M")),
      0 !== a && (l += "".concat(Math.abs(a), "W")),
      0 !== o && (l += "".concat(Math.abs(o), "D")));
    var c = "";
    (0 !== i && (c += "".concat(Math.abs(i), "H")),
      0 !== u && (c += "".concat(Math.abs(u), "M")));
    var d = te.fromComponents(
      0,
      0,
      GetSlot(e, R),
      GetSlot(e, G),
      GetSlot(e, M),
      GetSlot(e, A),
    );
    if (
      !d.isZero() ||
      ["second", "millisecond", "microsecond", "nanosecond"].includes(
        DefaultTemporalLargestUnit(e),
      ) ||
      "auto" !== t
    ) {
      var m = Math.abs(d.sec),
        h = FormatFractionalSeconds(Math.abs(d.subsec), t);
      c += "".concat(m).concat(h, "S");
    }
    var f = "".concat(s < 0 ? "-" : "", "P").concat(l);
    return (c && (f = "".concat(f, "T").concat(c)), f);
  }
  function TemporalDateToString(e) {
    var t =
        arguments.length > 1 && void 0 !== arguments[1] ? arguments[1] : "auto",
      n = GetSlot(e, D),
      r = n.year,
      a = n.month,
      o = n.day,
      i = ISOYearString(r),
      u = ISODateTimePartString(a),
      s = ISODateTimePartString(o),
      l = FormatCalendarAnnotation(GetSlot(e, T), t);
    return "".concat(i, "-").concat(u, "-").concat(s).concat(l);
  }
  function TimeRecordToString(e, t) {
    return FormatTimeString(
      e.hour,
      e.minute,
      e.second,
      1e6 * e.millisecond + 1e3 * e.microsecond + e.nanosecond,
      t,
    );
  }
  function ISODateTimeToString(e, t, n) {
    var r =
        arguments.length > 3 && void 0 !== arguments[3] ? arguments[3] : "auto",
      a = e.isoDate,
      o = a.year,
      i = a.month,
      u = a.day,
      s = e.time,
      l = s.hour,
      c = s.minute,
      d = s.second,
      m = s.millisecond,
      h = s.microsecond,
      f = s.nanosecond,
      p = ISOYearString(o),
      v = ISODateTimePartString(i),
      D = ISODateTimePartString(u),
      g = FormatTimeString(l, c, d, 1e6 * m + 1e3 * h + f, n),
      y = FormatCalendarAnnotation(t, r);
    return "".concat(p, "-").concat(v, "-").concat(D, "T").concat(g).concat(y);
  }
  function TemporalMonthDayToString(e) {
    var t =
        arguments.length > 1 && void 0 !== arguments[1] ? arguments[1] : "auto",
      n = GetSlot(e, D),
      r = n.year,
      a = n.month,
      o = n.day,
      i = ISODateTimePartString(a),
      u = ISODateTimePartString(o),
      s = "".concat(i, "-").concat(u),
      l = GetSlot(e, T);
    if ("always" === t || "critical" === t || "iso8601" !== l) {
      var c = ISOYearString(r);
      s = "".concat(c, "-").concat(s);
    }
    var d = FormatCalendarAnnotation(l, t);
    return (d && (s += d), s);
  }
  function TemporalYearMonthToString(e) {
    var t =
        arguments.length > 1 && void 0 !== arguments[1] ? arguments[1] : "auto",
      n = GetSlot(e, D),
      r = n.year,
      a = n.month,
      o = n.day,
      i = ISOYearString(r),
      u = ISODateTimePartString(a),
      s = "".concat(i, "-").concat(u),
      l = GetSlot(e, T);
    if ("always" === t || "critical" === t || "iso8601" !== l) {
      var c = ISODateTimePartString(o);
      s += "-".concat(c);
    }
    var d = FormatCalendarAnnotation(l, t);
    return (d && (s += d), s);
  }
  function TemporalZonedDateTimeToString(e, t) {
    var n =
        arguments.length > 2 && void 0 !== arguments[2] ? arguments[2] : "auto",
      r =
        arguments.length > 3 && void 0 !== arguments[3] ? arguments[3] : "auto",
      a =
        arguments.length > 4 && void 0 !== arguments[4] ? arguments[4] : "auto",
      o =
        arguments.length > 5 && void 0 !== arguments[5] ? arguments[5] : void 0,
      i = GetSlot(e, v);
    if (o) {
      var u = o.unit;
      i = RoundTemporalInstant(i, o.increment, u, o.roundingMode);
    }
    var s = GetSlot(e, _),
      l = GetOffsetNanosecondsFor(s, i),
      c = ISODateTimeToString(GetISODateTimeFor(s, i), "iso8601", t, "never");
    return (
      "never" !== a && (c += FormatDateTimeUTCOffsetRounded(l)),
      "never" !== r &&
        (c += "[".concat("critical" === r ? "!" : "").concat(s, "]")),
      c + FormatCalendarAnnotation(GetSlot(e, T), n)
    );
  }
  function IsOffsetTimeZoneIdentifier(e) {
    return He.test(e);
  }
  function ParseDateTimeUTCOffset(e) {
    var t = Xe.exec(e);
    if (!t)
      throw new RangeError(
        "invalid time zone offset: ".concat(
          e,
          "; must match ±HH:MM[:SS.SSSSSSSSS]",
        ),
      );
    return (
      ("-" === t[1] ? -1 : 1) *
      (1e9 * (60 * (60 * +t[2] + +(t[3] || 0)) + +(t[4] || 0)) +
        +((t[5] || 0) + "000000000").slice(0, 9))
    );
  }
  var ze = void 0,
    qe = Object.assign(Object.create(null), { "/": !0, "-": !0, _: !0 });
  function GetAvailableNamedTimeZoneIdentifier(e) {
    var t, n, r;
    if (void 0 === ze) {
      var a,
        o,
        i =
          null === (a = (o = Intl).supportedValuesOf) || void 0 === a
            ? void 0
            : a.call(o, "timeZone");
      if (i) {
        ze = new Map();
        for (var u = 0; u < i.length; u++) {
          var s = i[u];
          ze.set(ASCIILowercase(s), s);
        }
      } else ze = null;
    }
    var l = ASCIILowercase(e),
      c = null === (t = ze) || void 0 === t ? void 0 : t.get(l);
    if (c) return { identifier: c, primaryIdentifier: c };
    try {
      c = getIntlDateTimeFormatEnUsForTimeZone(e).resolvedOptions().timeZone;
    } catch (e) {
      return;
    }
    if (
      ("antarctica/south_pole" === l && (c = "Antarctica/McMurdo"), Re.has(e))
    )
      throw new RangeError(
        ""
          .concat(e, " is a legacy time zone identifier from ICU. Use ")
          .concat(c, " instead"),
      );
    var d = _toConsumableArray(l)
      .map(function (e, t) {
        return 0 === t || qe[l[t - 1]] ? e.toUpperCase() : e;
      })
      .join("")
      .split("/");
    if (1 === d.length)
      return "gb-eire" === l
        ? { identifier: "GB-Eire", primaryIdentifier: c }
        : {
            identifier:
              l.length <= 3 || /[-0-9]/.test(l) ? l.toUpperCase() : d[0],
            primaryIdentifier: c,
          };
    if ("Etc" === d[0]) {
      var m = ["Zulu", "Greenwich", "Universal"].includes(d[1])
        ? d[1]
        : d[1].toUpperCase();
      return { identifier: "Etc/".concat(m), primaryIdentifier: c };
    }
    if ("Us" === d[0])
      return { identifier: "US/".concat(d[1]), primaryIdentifier: c };
    var h = new Map([
      ["Act", "ACT"],
      ["Lhi", "LHI"],
      ["Nsw", "NSW"],
      ["Dar_Es_Salaam", "Dar_es_Salaam"],
      ["Port_Of_Spain", "Port_of_Spain"],
      ["Port-Au-Prince", "Port-au-Prince"],
      ["Isle_Of_Man", "Isle_of_Man"],
      ["Comodrivadavia", "ComodRivadavia"],
      ["Knox_In", "Knox_IN"],
      ["Dumontdurville", "DumontDUrville"],
      ["Mcmurdo", "McMurdo"],
      ["Denoronha", "DeNoronha"],
      ["Easterisland", "EasterIsland"],
      ["Bajanorte", "BajaNorte"],
      ["Bajasur", "BajaSur"],
    ]);
    return (
      (d[1] = null !== (n = h.get(d[1])) && void 0 !== n ? n : d[1]),
      d.length > 2 &&
        (d[2] = null !== (r = h.get(d[2])) && void 0 !== r ? r : d[2]),
      { identifier: d.join("/"), primaryIdentifier: c }
    );
  }
  function GetNamedTimeZoneOffsetNanosecondsImpl(e, t) {
    var n = GetFormatterParts(e, t),
      r = t % 1e3;
    return (
      r < 0 && (r += 1e3),
      1e6 *
        (GetUTCEpochMilliseconds({
          isoDate: { year: n.year, month: n.month, day: n.day },
          time: {
            hour: n.hour,
            minute: n.minute,
            second: n.second,
            millisecond: r,
          },
        }) -
          t)
    );
  }
  function GetNamedTimeZoneOffsetNanoseconds(e, t) {
    return GetNamedTimeZoneOffsetNanosecondsImpl(e, epochNsToMs(t, "floor"));
  }
  function FormatOffsetTimeZoneIdentifier(e) {
    var t = e < 0 ? "-" : "+",
      n = Math.abs(e),
      r = FormatTimeString(Math.floor(n / 60), n % 60, 0, 0, "minute");
    return "".concat(t).concat(r);
  }
  function FormatDateTimeUTCOffsetRounded(e) {
    return FormatOffsetTimeZoneIdentifier(
      RoundNumberToIncrement(e, Se, "halfExpand") / 6e10,
    );
  }
  function GetUTCEpochMilliseconds(e) {
    var t = e.isoDate,
      n = t.year,
      r = t.month,
      a = t.day,
      o = e.time,
      i = o.hour,
      u = o.minute,
      s = o.second,
      l = o.millisecond,
      c = n % 400,
      d = (n - c) / 400,
      m = new Date();
    return (
      m.setUTCHours(i, u, s, l),
      m.setUTCFullYear(c, r - 1, a),
      m.getTime() + we * d
    );
  }
  function GetUTCEpochNanoseconds(e) {
    var n = GetUTCEpochMilliseconds(e),
      r = 1e3 * e.time.microsecond + e.time.nanosecond;
    return t.add(epochMsToNs(n), t.BigInt(r));
  }
  function GetISOPartsFromEpoch(e) {
    var n = epochNsToMs(e, "trunc"),
      r = t.toNumber(t.remainder(e, d));
    r < 0 && ((r += 1e6), (n -= 1));
    var a = Math.floor(r / 1e3) % 1e3,
      o = r % 1e3,
      i = new Date(n);
    return {
      epochMilliseconds: n,
      isoDate: {
        year: i.getUTCFullYear(),
        month: i.getUTCMonth() + 1,
        day: i.getUTCDate(),
      },
      time: {
        hour: i.getUTCHours(),
        minute: i.getUTCMinutes(),
        second: i.getUTCSeconds(),
        millisecond: i.getUTCMilliseconds(),
        microsecond: a,
        nanosecond: o,
      },
    };
  }
  function GetNamedTimeZoneNextTransition(e, t) {
    if ("UTC" === e) return null;
    var n = epochNsToMs(t, "floor");
    if (n < Ee) return GetNamedTimeZoneNextTransition(e, epochMsToNs(Ee));
    for (
      var r = Date.now(),
        a = Math.max(n, r) + 366 * ye * 3,
        o = n,
        i = GetNamedTimeZoneOffsetNanosecondsImpl(e, o),
        u = o,
        s = i;
      i === s && o < a;

    ) {
      if ((u = o + 2 * ye * 7) > Ie) return null;
      i === (s = GetNamedTimeZoneOffsetNanosecondsImpl(e, u)) && (o = u);
    }
    return i === s
      ? null
      : epochMsToNs(
          bisect(
            function (t) {
              return GetNamedTimeZoneOffsetNanosecondsImpl(e, t);
            },
            o,
            u,
            i,
            s,
          ),
        );
  }
  function GetNamedTimeZonePreviousTransition(e, n) {
    if ("UTC" === e) return null;
    var r = epochNsToMs(n, "ceil"),
      a = Date.now(),
      o = a + 366 * ye * 3;
    if (r > o) {
      var i = GetNamedTimeZonePreviousTransition(e, epochMsToNs(o));
      if (null === i || t.lessThan(i, epochMsToNs(a))) return i;
    }
    if ("Africa/Casablanca" === e || "Africa/El_Aaiun" === e) {
      var u = Date.UTC(2088, 0, 1);
      if (u < r) return GetNamedTimeZonePreviousTransition(e, epochMsToNs(u));
    }
    var s = r - 1;
    if (s < Ee) return null;
    for (
      var l = GetNamedTimeZoneOffsetNanosecondsImpl(e, s), c = s, d = l;
      l === d && s > Ee;

    ) {
      if ((c = s - 2 * ye * 7) < Ee) return null;
      l === (d = GetNamedTimeZoneOffsetNanosecondsImpl(e, c)) && (s = c);
    }
    return l === d
      ? null
      : epochMsToNs(
          bisect(
            function (t) {
              return GetNamedTimeZoneOffsetNanosecondsImpl(e, t);
            },
            c,
            s,
            d,
            l,
          ),
        );
  }
  function GetFormatterParts(e, t) {
    return (function parseFromEnUsFormat(e) {
      var t = e.split(/[^\w]+/);
      if (7 !== t.length)
        throw new RangeError('expected 7 parts in "'.concat(e));
      var n = +t[0],
        r = +t[1],
        a = +t[2],
        o = t[3];
      if ("b" === o[0] || "B" === o[0]) a = 1 - a;
      else if ("a" !== o[0] && "A" !== o[0])
        throw new RangeError("Unknown era ".concat(o, ' in "').concat(e));
      var i = "24" === t[4] ? 0 : +t[4],
        u = +t[5],
        s = +t[6];
      if (
        !(
          Number.isFinite(a) &&
          Number.isFinite(n) &&
          Number.isFinite(r) &&
          Number.isFinite(i) &&
          Number.isFinite(u) &&
          Number.isFinite(s)
        )
      )
        throw new RangeError('Invalid number in "'.concat(e));
      return { year: a, month: n, day: r, hour: i, minute: u, second: s };
    })(getIntlDateTimeFormatEnUsForTimeZone(e).format(t));
  }
  function LeapYear(e) {
    return !(void 0 === e || e % 4 != 0 || (e % 100 == 0 && e % 400 != 0));
  }
  function ISODaysInMonth(e, t) {
    return {
      standard: [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31],
      leapyear: [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31],
    }[LeapYear(e) ? "leapyear" : "standard"][t - 1];
  }
  function DurationSign(e) {
    for (
      var t = [
          GetSlot(e, O),
          GetSlot(e, b),
          GetSlot(e, w),
          GetSlot(e, k),
          GetSlot(e, E),
          GetSlot(e, B),
          GetSlot(e, R),
          GetSlot(e, G),
          GetSlot(e, M),
          GetSlot(e, A),
        ],
        n = 0;
      n < t.length;
      n++
    ) {
      var r = t[n];
      if (0 !== r) return r < 0 ? -1 : 1;
    }
    return 0;
  }
  function DateDurationSign(e) {
    for (
      var t = ["years", "months", "weeks", "days"], n = 0;
      n < t.length;
      n++
    ) {
      var r = e[t[n]];
      if (0 !== r) return r < 0 ? -1 : 1;
    }
    return 0;
  }
  function InternalDurationSign(e) {
    var t = DateDurationSign(e.date);
    return 0 !== t ? t : e.time.sign();
  }
  function BalanceISOYearMonth(e, t) {
    var n = e,
      r = t;
    if (!Number.isFinite(n) || !Number.isFinite(r))
      throw new RangeError("infinity is out of range");
    return (
      (r -= 1),
      (n += Math.floor(r / 12)),
      (r %= 12) < 0 && (r += 12),
      { year: n, month: (r += 1) }
    );
  }
  function BalanceISODate(e, t, n) {
    var r = e,
      a = t,
      o = n;
    if (!Number.isFinite(o)) throw new RangeError("infinity is out of range");
    var i = BalanceISOYearMonth(r, a);
    ((r = i.year), (a = i.month));
    var u = 146097;
    if (Math.abs(o) > u) {
      var s = Math.trunc(o / u);
      ((r += 400 * s), (o -= s * u));
    }
    for (var l = 0, c = a > 2 ? r : r - 1; o < -(l = LeapYear(c) ? 366 : 365); )
      ((r -= 1), (c -= 1), (o += l));
    for (c += 1; o > (l = LeapYear(c) ? 366 : 365); )
      ((r += 1), (c += 1), (o -= l));
    for (; o < 1; ) {
      var d = BalanceISOYearMonth(r, a - 1);
      o += ISODaysInMonth((r = d.year), (a = d.month));
    }
    for (; o > ISODaysInMonth(r, a); ) {
      o -= ISODaysInMonth(r, a);
      var m = BalanceISOYearMonth(r, a + 1);
      ((r = m.year), (a = m.month));
    }
    return { year: r, month: a, day: o };
  }
  function BalanceISODateTime(e, t, n, r, a, o, i, u, s) {
    var l = BalanceTime(r, a, o, i, u, s);
    return CombineISODateAndTimeRecord(
      BalanceISODate(e, t, n + l.deltaDays),
      l,
    );
  }
  function BalanceTime(e, t, n, r, a, o) {
    var i = e,
      u = t,
      s = n,
      l = r,
      c = a,
      d = o,
      m = TruncatingDivModByPowerOf10(d, 3);
    ((c += m.div), (d = m.mod) < 0 && ((c -= 1), (d += 1e3)));
    var h = TruncatingDivModByPowerOf10(c, 3);
    ((l += h.div),
      (c = h.mod) < 0 && ((l -= 1), (c += 1e3)),
      (s += Math.trunc(l / 1e3)),
      (l %= 1e3) < 0 && ((s -= 1), (l += 1e3)),
      (u += Math.trunc(s / 60)),
      (s %= 60) < 0 && ((u -= 1), (s += 60)),
      (i += Math.trunc(u / 60)),
      (u %= 60) < 0 && ((i -= 1), (u += 60)));
    var f = Math.trunc(i / 24);
    return (
      (i %= 24) < 0 && ((f -= 1), (i += 24)),
      {
        deltaDays: (f += 0),
        hour: (i += 0),
        minute: (u += 0),
        second: (s += 0),
        millisecond: (l += 0),
        microsecond: (c += 0),
        nanosecond: (d += 0),
      }
    );
  }
  function DateDurationDays(e, t) {
    var n = AdjustDateDurationRecord(e, 0);
    if (0 === DateDurationSign(n)) return e.days;
    var r = GetSlot(t, D),
      a = CalendarDateAdd(GetSlot(t, T), r, n, "constrain"),
      o = ISODateToEpochDays(r.year, r.month - 1, r.day),
      i = ISODateToEpochDays(a.year, a.month - 1, a.day) - o;
    return e.days + i;
  }
  function CreateNegatedTemporalDuration(e) {
    return new (GetIntrinsic("%Temporal.Duration%"))(
      -GetSlot(e, O),
      -GetSlot(e, b),
      -GetSlot(e, w),
      -GetSlot(e, k),
      -GetSlot(e, E),
      -GetSlot(e, B),
      -GetSlot(e, R),
      -GetSlot(e, G),
      -GetSlot(e, M),
      -GetSlot(e, A),
    );
  }
  function ConstrainToRange(e, t, n) {
    return Math.min(n, Math.max(t, e));
  }
  function ConstrainISODate(e, t, n) {
    var r = ConstrainToRange(t, 1, 12);
    return {
      year: e,
      month: r,
      day: ConstrainToRange(n, 1, ISODaysInMonth(e, r)),
    };
  }
  function RejectToRange(e, t, n) {
    if (e < t || e > n)
      throw new RangeError(
        "value out of range: ".concat(t, " <= ").concat(e, " <= ").concat(n),
      );
  }
  function RejectISODate(e, t, n) {
    (RejectToRange(t, 1, 12), RejectToRange(n, 1, ISODaysInMonth(e, t)));
  }
  function RejectDateRange(e) {
    RejectDateTimeRange(
      CombineISODateAndTimeRecord(e, {
        deltaDays: 0,
        hour: 12,
        minute: 0,
        second: 0,
        millisecond: 0,
        microsecond: 0,
        nanosecond: 0,
      }),
    );
  }
  function RejectTime(e, t, n, r, a, o) {
    (RejectToRange(e, 0, 23),
      RejectToRange(t, 0, 59),
      RejectToRange(n, 0, 59),
      RejectToRange(r, 0, 999),
      RejectToRange(a, 0, 999),
      RejectToRange(o, 0, 999));
  }
  function RejectDateTime(e, t, n, r, a, o, i, u, s) {
    (RejectISODate(e, t, n), RejectTime(r, a, o, i, u, s));
  }
  function RejectDateTimeRange(e) {
    var n = GetUTCEpochNanoseconds(e);
    (t.lessThan(n, Oe) || t.greaterThan(n, be)) && ValidateEpochNanoseconds(n);
  }
  function AssertISODateTimeWithinLimits(e) {
    GetUTCEpochNanoseconds(e);
  }
  function ValidateEpochNanoseconds(e) {
    if (t.lessThan(e, _e) || t.greaterThan(e, Ce))
      throw new RangeError("date/time value is outside of supported range");
  }
  function RejectYearMonthRange(e) {
    var t = e.year,
      n = e.month;
    (RejectToRange(t, Fe, ke),
      t === Fe ? RejectToRange(n, 4, 12) : t === ke && RejectToRange(n, 1, 9));
  }
  function RejectDuration(e, t, n, r, a, o, i, u, s, l) {
    for (
      var c = 0, d = [e, t, n, r, a, o, i, u, s, l], m = 0;
      m < d.length;
      m++
    ) {
      var h = d[m];
      if (h === 1 / 0 || h === -1 / 0)
        throw new RangeError("infinite values not allowed as duration fields");
      if (0 !== h) {
        var f = h < 0 ? -1 : 1;
        if (0 !== c && f !== c)
          throw new RangeError(
            "mixed-sign values not allowed as duration fields",
          );
        c = f;
      }
    }
    if (
      Math.abs(e) >= Math.pow(2, 32) ||
      Math.abs(t) >= Math.pow(2, 32) ||
      Math.abs(n) >= Math.pow(2, 32)
    )
      throw new RangeError("years, months, and weeks must be < 2³²");
    var p = TruncatingDivModByPowerOf10(u, 3),
      v = TruncatingDivModByPowerOf10(s, 6),
      D = TruncatingDivModByPowerOf10(l, 9),
      g = TruncatingDivModByPowerOf10(1e6 * p.mod + 1e3 * v.mod + D.mod, 9).div,
      y = 86400 * r + 3600 * a + 60 * o + i + p.div + v.div + D.div + g;
    if (!Number.isSafeInteger(y))
      throw new RangeError(
        "total of duration time units cannot exceed 9007199254740991.999999999 s",
      );
  }
  function ToInternalDurationRecord(e) {
    return {
      date: {
        years: GetSlot(e, O),
        months: GetSlot(e, b),
        weeks: GetSlot(e, w),
        days: GetSlot(e, k),
      },
      time: te.fromComponents(
        GetSlot(e, E),
        GetSlot(e, B),
        GetSlot(e, R),
        GetSlot(e, G),
        GetSlot(e, M),
        GetSlot(e, A),
      ),
    };
  }
  function ToInternalDurationRecordWith24HourDays(e) {
    var t = te
      .fromComponents(
        GetSlot(e, E),
        GetSlot(e, B),
        GetSlot(e, R),
        GetSlot(e, G),
        GetSlot(e, M),
        GetSlot(e, A),
      )
      .add24HourDays(GetSlot(e, k));
    return {
      date: {
        years: GetSlot(e, O),
        months: GetSlot(e, b),
        weeks: GetSlot(e, w),
        days: 0,
      },
      time: t,
    };
  }
  function ToDateDurationRecordWithoutTime(e) {
    var t = ToInternalDurationRecordWith24HourDays(e),
      n = Math.trunc(t.time.sec / 86400);
    return (
      RejectDuration(
        t.date.years,
        t.date.months,
        t.date.weeks,
        n,
        0,
        0,
        0,
        0,
        0,
        0,
      ),
      _objectSpread2(_objectSpread2({}, t.date), {}, { days: n })
    );
  }
  function TemporalDurationFromInternal(e, t) {
    var n = e.time.sign(),
      r = e.time.abs().subsec,
      a = 0,
      o = 0,
      i = e.time.abs().sec,
      u = 0,
      s = 0,
      l = 0;
    switch (t) {
      case "year":
      case "month":
      case "week":
      case "day":
        ((a = Math.trunc(r / 1e3)),
          (r %= 1e3),
          (o = Math.trunc(a / 1e3)),
          (a %= 1e3),
          (i += Math.trunc(o / 1e3)),
          (o %= 1e3),
          (u = Math.trunc(i / 60)),
          (i %= 60),
          (s = Math.trunc(u / 60)),
          (u %= 60),
          (l = Math.trunc(s / 24)),
          (s %= 24));
        break;
      case "hour":
        ((a = Math.trunc(r / 1e3)),
          (r %= 1e3),
          (o = Math.trunc(a / 1e3)),
          (a %= 1e3),
          (i += Math.trunc(o / 1e3)),
          (o %= 1e3),
          (u = Math.trunc(i / 60)),
          (i %= 60),
          (s = Math.trunc(u / 60)),
          (u %= 60));
        break;
      case "minute":
        ((a = Math.trunc(r / 1e3)),
          (r %= 1e3),
          (o = Math.trunc(a / 1e3)),
          (a %= 1e3),
          (i += Math.trunc(o / 1e3)),
          (o %= 1e3),
          (u = Math.trunc(i / 60)),
          (i %= 60));
        break;
      case "second":
        ((a = Math.trunc(r / 1e3)),
          (r %= 1e3),
          (o = Math.trunc(a / 1e3)),
          (a %= 1e3),
          (i += Math.trunc(o / 1e3)),
          (o %= 1e3));
        break;
      case "millisecond":
        ((a = Math.trunc(r / 1e3)),
          (r %= 1e3),
          (o = FMAPowerOf10(i, 3, Math.trunc(a / 1e3))),
          (a %= 1e3),
          (i = 0));
        break;
      case "microsecond":
        ((a = FMAPowerOf10(i, 6, Math.trunc(r / 1e3))), (r %= 1e3), (i = 0));
        break;
      case "nanosecond":
        ((r = FMAPowerOf10(i, 9, r)), (i = 0));
    }
    return new (GetIntrinsic("%Temporal.Duration%"))(
      e.date.years,
      e.date.months,
      e.date.weeks,
      e.date.days + n * l,
      n * s,
      n * u,
      n * i,
      n * o,
      n * a,
      n * r,
    );
  }
  function CombineDateAndTimeDuration(e, t) {
    return (DateDurationSign(e), t.sign(), { date: e, time: t });
  }
  function ISODateToEpochDays(e, t, n) {
    return (
      GetUTCEpochMilliseconds({
        isoDate: { year: e, month: t + 1, day: n },
        time: { hour: 0, minute: 0, second: 0, millisecond: 0 },
      }) / ye
    );
  }
  function CheckISODaysRange(e) {
    var t = e.year,
      n = e.month,
      r = e.day;
    if (Math.abs(ISODateToEpochDays(t, n - 1, r)) > 1e8)
      throw new RangeError("date/time value is outside the supported range");
  }
  function DifferenceTime(e, t) {
    var n = t.hour - e.hour,
      r = t.minute - e.minute,
      a = t.second - e.second,
      o = t.millisecond - e.millisecond,
      i = t.microsecond - e.microsecond,
      u = t.nanosecond - e.nanosecond;
    return te.fromComponents(n, r, a, o, i, u);
  }
  function DifferenceInstant(e, t, n, r, a) {
    var o = te.fromEpochNsDiff(t, e);
    return CombineDateAndTimeDuration(
      { years: 0, months: 0, weeks: 0, days: 0 },
      (o = RoundTimeDuration(o, n, r, a)),
    );
  }
  function DifferenceISODateTime(e, t, n, r) {
    (AssertISODateTimeWithinLimits(e), AssertISODateTimeWithinLimits(t));
    var a = DifferenceTime(e.time, t.time),
      o = a.sign(),
      i = CompareISODate(e.isoDate, t.isoDate),
      u = t.isoDate;
    i === o &&
      ((u = BalanceISODate(u.year, u.month, u.day + o)),
      (a = a.add24HourDays(-o)));
    var s = LargerOfTwoTemporalUnits("day", r),
      l = CalendarDateUntil(n, e.isoDate, u, s);
    return (
      r !== s && ((a = a.add24HourDays(l.days)), (l.days = 0)),
      CombineDateAndTimeDuration(l, a)
    );
  }
  function DifferenceZonedDateTime(e, n, r, o, i) {
    var u = t.subtract(n, e);
    if (t.equal(u, a))
      return {
        date: { years: 0, months: 0, weeks: 0, days: 0 },
        time: te.ZERO,
      };
    var s,
      l = t.lessThan(u, a) ? -1 : 1,
      c = GetISODateTimeFor(r, e),
      d = GetISODateTimeFor(r, n),
      m = 0,
      h = 1 === l ? 2 : 1,
      f = DifferenceTime(c.time, d.time);
    for (f.sign() === -l && m++; m <= h; m++) {
      var p = GetEpochNanosecondsFor(
        r,
        (s = CombineISODateAndTimeRecord(
          BalanceISODate(
            d.isoDate.year,
            d.isoDate.month,
            d.isoDate.day - m * l,
          ),
          c.time,
        )),
        "compatible",
      );
      if ((f = te.fromEpochNsDiff(n, p)).sign() !== -l) break;
    }
    var v = LargerOfTwoTemporalUnits("day", i);
    return CombineDateAndTimeDuration(
      CalendarDateUntil(o, c.isoDate, s.isoDate, v),
      f,
    );
  }
  function NudgeToCalendarUnit(e, n, r, a, o, i, u, s, l) {
    var c,
      d,
      m,
      h,
      f = n;
    switch (s) {
      case "year":
        var p = RoundNumberToIncrement(f.date.years, u, "trunc");
        ((d = p + u * e),
          (h = _objectSpread2(
            _objectSpread2(
              {},
              (m = { years: (c = p), months: 0, weeks: 0, days: 0 }),
            ),
            {},
            { years: d },
          )));
        break;
      case "month":
        var v = RoundNumberToIncrement(f.date.months, u, "trunc");
        ((c = v),
          (d = v + u * e),
          (m = AdjustDateDurationRecord(f.date, 0, 0, c)),
          (h = AdjustDateDurationRecord(f.date, 0, 0, d)));
        break;
      case "week":
        var D = AdjustDateDurationRecord(f.date, 0, 0),
          g = CalendarDateAdd(i, a.isoDate, D, "constrain"),
          y = CalendarDateUntil(
            i,
            g,
            BalanceISODate(g.year, g.month, g.day + f.date.days),
            "week",
          ),
          T = RoundNumberToIncrement(f.date.weeks + y.weeks, u, "trunc");
        ((c = T),
          (d = T + u * e),
          (m = AdjustDateDurationRecord(f.date, 0, c)),
          (h = AdjustDateDurationRecord(f.date, 0, d)));
        break;
      case "day":
        var S = RoundNumberToIncrement(f.date.days, u, "trunc");
        ((c = S),
          (d = S + u * e),
          (m = AdjustDateDurationRecord(f.date, c)),
          (h = AdjustDateDurationRecord(f.date, d)));
    }
    var I,
      C,
      _ = CalendarDateAdd(i, a.isoDate, m, "constrain"),
      O = CalendarDateAdd(i, a.isoDate, h, "constrain"),
      b = CombineISODateAndTimeRecord(_, a.time),
      w = CombineISODateAndTimeRecord(O, a.time);
    o
      ? ((I = GetEpochNanosecondsFor(o, b, "compatible")),
        (C = GetEpochNanosecondsFor(o, w, "compatible")))
      : ((I = GetUTCEpochNanoseconds(b)), (C = GetUTCEpochNanoseconds(w)));
    var k = te.fromEpochNsDiff(r, I),
      E = te.fromEpochNsDiff(C, I),
      B = GetUnsignedRoundingMode(l, e < 0 ? "negative" : "positive"),
      R = k.add(k).abs().subtract(E.abs()).sign(),
      G = (Math.abs(c) / u) % 2 == 0,
      M = k.isZero()
        ? Math.abs(c)
        : k.cmp(E)
          ? ApplyUnsignedRoundingMode(Math.abs(c), Math.abs(d), R, G, B)
          : Math.abs(d),
      A = new te(
        t.add(
          t.multiply(E.totalNs, t.BigInt(c)),
          t.multiply(k.totalNs, t.BigInt(u * e)),
        ),
      ).fdiv(E.totalNs),
      P = M === Math.abs(d);
    return {
      nudgeResult: {
        duration: (f = { date: P ? h : m, time: te.ZERO }),
        nudgedEpochNs: P ? C : I,
        didExpandCalendarUnit: P,
      },
      total: A,
    };
  }
  function RoundRelativeDuration(e, n, r, a, o, i, u, s, l) {
    var c,
      d = e,
      m = IsCalendarUnit(s) || (a && "day" === s),
      h = InternalDurationSign(d) < 0 ? -1 : 1;
    return (
      (c = m
        ? NudgeToCalendarUnit(h, d, n, r, a, o, u, s, l).nudgeResult
        : a
          ? (function NudgeToZonedTime(e, n, r, a, o, i, u, s) {
              var l = n,
                c = CalendarDateAdd(o, r.isoDate, l.date, "constrain"),
                d = CombineISODateAndTimeRecord(c, r.time),
                m = CombineISODateAndTimeRecord(
                  BalanceISODate(c.year, c.month, c.day + e),
                  r.time,
                ),
                h = GetEpochNanosecondsFor(a, d, "compatible"),
                f = GetEpochNanosecondsFor(a, m, "compatible"),
                p = te.fromEpochNsDiff(f, h);
              if (p.sign() !== e)
                throw new RangeError(
                  "time zone returned inconsistent Instants",
                );
              var v,
                D,
                g = t.BigInt(Je[u] * i),
                y = l.time.round(g, s),
                T = y.subtract(p),
                S = T.sign() !== -e;
              return (
                S
                  ? ((v = e), (D = (y = T.round(g, s)).addToEpochNs(f)))
                  : ((v = 0), (D = y.addToEpochNs(h))),
                {
                  duration: CombineDateAndTimeDuration(
                    AdjustDateDurationRecord(l.date, l.date.days + v),
                    y,
                  ),
                  nudgedEpochNs: D,
                  didExpandCalendarUnit: S,
                }
              );
            })(h, d, r, a, o, u, s, l)
          : (function NudgeToDayOrTime(e, n, r, a, o, i) {
              var u = e,
                s = u.time.add24HourDays(u.date.days),
                l = s.round(t.BigInt(a * Je[o]), i),
                c = l.subtract(s),
                d = s.divmod(Te).quotient,
                m = l.divmod(Te).quotient,
                h = Math.sign(m - d) === s.sign(),
                f = c.addToEpochNs(n),
                p = 0,
                v = l;
              return (
                "date" === TemporalUnitCategory(r) &&
                  ((p = m),
                  (v = l.add(te.fromComponents(24 * -m, 0, 0, 0, 0, 0)))),
                {
                  duration: {
                    date: AdjustDateDurationRecord(u.date, p),
                    time: v,
                  },
                  nudgedEpochNs: f,
                  didExpandCalendarUnit: h,
                }
              );
            })(d, n, i, u, s, l)),
      (d = c.duration),
      c.didExpandCalendarUnit &&
        "week" !== s &&
        (d = (function BubbleRelativeDuration(e, t, n, r, a, o, i, u) {
          var s = t;
          if (u === i) return s;
          for (var l = Ye.indexOf(i), c = Ye.indexOf(u) - 1; c >= l; c--) {
            var d = Ye[c];
            if ("week" !== d || "week" === i) {
              var m = void 0;
              switch (d) {
                case "year":
                  m = { years: s.date.years + e, months: 0, weeks: 0, days: 0 };
                  break;
                case "month":
                  var h = s.date.months + e;
                  m = AdjustDateDurationRecord(s.date, 0, 0, h);
                  break;
                case "week":
                  var f = s.date.weeks + e;
                  m = AdjustDateDurationRecord(s.date, 0, f);
              }
              var p = CombineISODateAndTimeRecord(
                CalendarDateAdd(o, r.isoDate, m, "constrain"),
                r.time,
              );
              if (
                compare(
                  n,
                  a
                    ? GetEpochNanosecondsFor(a, p, "compatible")
                    : GetUTCEpochNanoseconds(p),
                ) === -e
              )
                break;
              s = { date: m, time: te.ZERO };
            }
          }
          return s;
        })(
          h,
          d,
          c.nudgedEpochNs,
          r,
          a,
          o,
          i,
          LargerOfTwoTemporalUnits(s, "day"),
        )),
      d
    );
  }
  function TotalRelativeDuration(e, t, n, r, a, o) {
    return IsCalendarUnit(o) || (r && "day" === o)
      ? NudgeToCalendarUnit(
          InternalDurationSign(e) < 0 ? -1 : 1,
          e,
          t,
          n,
          r,
          a,
          1,
          o,
          "trunc",
        ).total
      : TotalTimeDuration(e.time.add24HourDays(e.date.days), o);
  }
  function DifferencePlainDateTimeWithRounding(e, t, n, r, a, o, i) {
    if (0 == CompareISODateTime(e, t))
      return {
        date: { years: 0, months: 0, weeks: 0, days: 0 },
        time: te.ZERO,
      };
    (RejectDateTimeRange(e), RejectDateTimeRange(t));
    var u = DifferenceISODateTime(e, t, n, r);
    return "nanosecond" === o && 1 === a
      ? u
      : RoundRelativeDuration(
          u,
          GetUTCEpochNanoseconds(t),
          e,
          null,
          n,
          r,
          a,
          o,
          i,
        );
  }
  function DifferenceZonedDateTimeWithRounding(e, t, n, r, a, o, i, u) {
    if ("time" === TemporalUnitCategory(a))
      return DifferenceInstant(e, t, o, i, u);
    var s = DifferenceZonedDateTime(e, t, n, r, a);
    return "nanosecond" === i && 1 === o
      ? s
      : RoundRelativeDuration(s, t, GetISODateTimeFor(n, e), n, r, a, o, i, u);
  }
  function GetDifferenceSettings(e, t, n, r, a, o) {
    var i = Pe.reduce(function (e, t) {
        var a = t[0],
          o = t[1],
          i = t[2];
        return (
          ("datetime" !== n && i !== n) || r.includes(o) || e.push(o, a),
          e
        );
      }, []),
      u = GetTemporalUnitValuedOption(t, "largestUnit", n, "auto");
    if (r.includes(u))
      throw new RangeError(
        "largestUnit must be one of ".concat(i.join(", "), ", not ").concat(u),
      );
    var s = GetTemporalRoundingIncrementOption(t),
      l = GetRoundingModeOption(t, "trunc");
    "since" === e &&
      (l = (function NegateRoundingMode(e) {
        switch (e) {
          case "ceil":
            return "floor";
          case "floor":
            return "ceil";
          case "halfCeil":
            return "halfFloor";
          case "halfFloor":
            return "halfCeil";
          default:
            return e;
        }
      })(l));
    var c = GetTemporalUnitValuedOption(t, "smallestUnit", n, a);
    if (r.includes(c))
      throw new RangeError(
        "smallestUnit must be one of ".concat(i.join(", "), ", not ").concat(c),
      );
    var d = LargerOfTwoTemporalUnits(o, c);
    if (("auto" === u && (u = d), LargerOfTwoTemporalUnits(u, c) !== u))
      throw new RangeError(
        "largestUnit "
          .concat(u, " cannot be smaller than smallestUnit ")
          .concat(c),
      );
    var m = {
      hour: 24,
      minute: 60,
      second: 60,
      millisecond: 1e3,
      microsecond: 1e3,
      nanosecond: 1e3,
    }[c];
    return (
      void 0 !== m && ValidateTemporalRoundingIncrement(s, m, !1),
      { largestUnit: u, roundingIncrement: s, roundingMode: l, smallestUnit: c }
    );
  }
  function DifferenceTemporalInstant(e, t, n, r) {
    var a = ToTemporalInstant(n),
      o = GetDifferenceSettings(
        e,
        GetOptionsObject(r),
        "time",
        [],
        "nanosecond",
        "second",
      ),
      i = TemporalDurationFromInternal(
        DifferenceInstant(
          GetSlot(t, v),
          GetSlot(a, v),
          o.roundingIncrement,
          o.smallestUnit,
          o.roundingMode,
        ),
        o.largestUnit,
      );
    return ("since" === e && (i = CreateNegatedTemporalDuration(i)), i);
  }
  function DifferenceTemporalPlainDate(e, t, n, r) {
    var a = ToTemporalDate(n),
      o = GetSlot(t, T),
      i = GetSlot(a, T);
    if (!CalendarEquals(o, i))
      throw new RangeError(
        "cannot compute difference between dates of "
          .concat(o, " and ")
          .concat(i, " calendars"),
      );
    var u = GetDifferenceSettings(
        e,
        GetOptionsObject(r),
        "date",
        [],
        "day",
        "day",
      ),
      s = GetIntrinsic("%Temporal.Duration%"),
      l = GetSlot(t, D),
      c = GetSlot(a, D);
    if (0 === CompareISODate(l, c)) return new s();
    var d = { date: CalendarDateUntil(o, l, c, u.largestUnit), time: te.ZERO };
    if ("day" !== u.smallestUnit || 1 !== u.roundingIncrement) {
      var m = CombineISODateAndTimeRecord(l, {
        deltaDays: 0,
        hour: 0,
        minute: 0,
        second: 0,
        millisecond: 0,
        microsecond: 0,
        nanosecond: 0,
      });
      d = RoundRelativeDuration(
        d,
        GetUTCEpochNanoseconds(
          CombineISODateAndTimeRecord(c, {
            deltaDays: 0,
            hour: 0,
            minute: 0,
            second: 0,
            millisecond: 0,
            microsecond: 0,
            nanosecond: 0,
          }),
        ),
        m,
        null,
        o,
        u.largestUnit,
        u.roundingIncrement,
        u.smallestUnit,
        u.roundingMode,
      );
    }
    var h = TemporalDurationFromInternal(d, "day");
    return ("since" === e && (h = CreateNegatedTemporalDuration(h)), h);
  }
  function DifferenceTemporalPlainDateTime(e, t, n, r) {
    var a = ToTemporalDateTime(n),
      o = GetSlot(t, T),
      i = GetSlot(a, T);
    if (!CalendarEquals(o, i))
      throw new RangeError(
        "cannot compute difference between dates of "
          .concat(o, " and ")
          .concat(i, " calendars"),
      );
    var u = GetDifferenceSettings(
        e,
        GetOptionsObject(r),
        "datetime",
        [],
        "nanosecond",
        "day",
      ),
      s = GetIntrinsic("%Temporal.Duration%"),
      l = GetSlot(t, g),
      c = GetSlot(a, g);
    if (0 === CompareISODateTime(l, c)) return new s();
    var d = TemporalDurationFromInternal(
      DifferencePlainDateTimeWithRounding(
        l,
        c,
        o,
        u.largestUnit,
        u.roundingIncrement,
        u.smallestUnit,
        u.roundingMode,
      ),
      u.largestUnit,
    );
    return ("since" === e && (d = CreateNegatedTemporalDuration(d)), d);
  }
  function DifferenceTemporalPlainTime(e, t, n, r) {
    var a = ToTemporalTime(n),
      o = GetDifferenceSettings(
        e,
        GetOptionsObject(r),
        "time",
        [],
        "nanosecond",
        "hour",
      ),
      i = DifferenceTime(GetSlot(t, y), GetSlot(a, y)),
      u = TemporalDurationFromInternal(
        CombineDateAndTimeDuration(
          { years: 0, months: 0, weeks: 0, days: 0 },
          (i = RoundTimeDuration(
            i,
            o.roundingIncrement,
            o.smallestUnit,
            o.roundingMode,
          )),
        ),
        o.largestUnit,
      );
    return ("since" === e && (u = CreateNegatedTemporalDuration(u)), u);
  }
  function DifferenceTemporalPlainYearMonth(e, t, n, r) {
    var a = ToTemporalYearMonth(n),
      o = GetSlot(t, T),
      i = GetSlot(a, T);
    if (!CalendarEquals(o, i))
      throw new RangeError(
        "cannot compute difference between months of "
          .concat(o, " and ")
          .concat(i, " calendars"),
      );
    var u = GetDifferenceSettings(
        e,
        GetOptionsObject(r),
        "date",
        ["week", "day"],
        "month",
        "year",
      ),
      s = GetIntrinsic("%Temporal.Duration%");
    if (0 == CompareISODate(GetSlot(t, D), GetSlot(a, D))) return new s();
    var l = ISODateToFields(o, GetSlot(t, D), "year-month");
    l.day = 1;
    var c = CalendarDateFromFields(o, l, "constrain"),
      d = ISODateToFields(o, GetSlot(a, D), "year-month");
    d.day = 1;
    var m = CalendarDateFromFields(o, d, "constrain"),
      h = {
        date: AdjustDateDurationRecord(
          CalendarDateUntil(o, c, m, u.largestUnit),
          0,
          0,
        ),
        time: te.ZERO,
      };
    if ("month" !== u.smallestUnit || 1 !== u.roundingIncrement) {
      var f = CombineISODateAndTimeRecord(c, {
        deltaDays: 0,
        hour: 0,
        minute: 0,
        second: 0,
        millisecond: 0,
        microsecond: 0,
        nanosecond: 0,
      });
      h = RoundRelativeDuration(
        h,
        GetUTCEpochNanoseconds(
          CombineISODateAndTimeRecord(m, {
            deltaDays: 0,
            hour: 0,
            minute: 0,
            second: 0,
            millisecond: 0,
            microsecond: 0,
            nanosecond: 0,
          }),
        ),
        f,
        null,
        o,
        u.largestUnit,
        u.roundingIncrement,
        u.smallestUnit,
        u.roundingMode,
      );
    }
    var p = TemporalDurationFromInternal(h, "day");
    return ("since" === e && (p = CreateNegatedTemporalDuration(p)), p);
  }
  function DifferenceTemporalZonedDateTime(e, n, r, a) {
    var o = ToTemporalZonedDateTime(r),
      i = GetSlot(n, T),
      u = GetSlot(o, T);
    if (!CalendarEquals(i, u))
      throw new RangeError(
        "cannot compute difference between dates of "
          .concat(i, " and ")
          .concat(u, " calendars"),
      );
    var s,
      l = GetDifferenceSettings(
        e,
        GetOptionsObject(a),
        "datetime",
        [],
        "nanosecond",
        "hour",
      ),
      c = GetSlot(n, v),
      d = GetSlot(o, v),
      m = GetIntrinsic("%Temporal.Duration%");
    if ("date" !== TemporalUnitCategory(l.largestUnit))
      s = TemporalDurationFromInternal(
        DifferenceInstant(
          c,
          d,
          l.roundingIncrement,
          l.smallestUnit,
          l.roundingMode,
        ),
        l.largestUnit,
      );
    else {
      var h = GetSlot(n, _);
      if (!TimeZoneEquals(h, GetSlot(o, _)))
        throw new RangeError(
          "When calculating difference between time zones, largestUnit must be 'hours' or smaller because day lengths can vary between time zones due to DST or time zone offset changes.",
        );
      if (t.equal(c, d)) return new m();
      s = TemporalDurationFromInternal(
        DifferenceZonedDateTimeWithRounding(
          c,
          d,
          h,
          i,
          l.largestUnit,
          l.roundingIncrement,
          l.smallestUnit,
          l.roundingMode,
        ),
        "hour",
      );
    }
    return ("since" === e && (s = CreateNegatedTemporalDuration(s)), s);
  }
  function AddTime(e, t) {
    var n = e.hour,
      r = e.minute,
      a = e.second,
      o = e.millisecond,
      i = e.microsecond,
      u = a,
      s = e.nanosecond;
    return BalanceTime(n, r, (u += t.sec), o, i, (s += t.subsec));
  }
  function AddInstant(e, t) {
    var n = t.addToEpochNs(e);
    return (ValidateEpochNanoseconds(n), n);
  }
  function AddZonedDateTime(e, t, n, r) {
    var a =
      arguments.length > 4 && void 0 !== arguments[4]
        ? arguments[4]
        : "constrain";
    if (0 === DateDurationSign(r.date)) return AddInstant(e, r.time);
    var o = GetISODateTimeFor(t, e);
    return AddInstant(
      GetEpochNanosecondsFor(
        t,
        CombineISODateAndTimeRecord(
          CalendarDateAdd(n, o.isoDate, r.date, a),
          o.time,
        ),
        "compatible",
      ),
      r.time,
    );
  }
  function AddDurations(e, t, n) {
    var r = ToTemporalDuration(n);
    "subtract" === e && (r = CreateNegatedTemporalDuration(r));
    var a = LargerOfTwoTemporalUnits(
      DefaultTemporalLargestUnit(t),
      DefaultTemporalLargestUnit(r),
    );
    if (IsCalendarUnit(a))
      throw new RangeError(
        "For years, months, or weeks arithmetic, use date arithmetic relative to a starting point",
      );
    var o = ToInternalDurationRecordWith24HourDays(t),
      i = ToInternalDurationRecordWith24HourDays(r);
    return TemporalDurationFromInternal(
      CombineDateAndTimeDuration(
        { years: 0, months: 0, weeks: 0, days: 0 },
        o.time.add(i.time),
      ),
      a,
    );
  }
  function AddDurationToInstant(e, t, n) {
    var r = ToTemporalDuration(n);
    "subtract" === e && (r = CreateNegatedTemporalDuration(r));
    var a = DefaultTemporalLargestUnit(r);
    if ("date" === TemporalUnitCategory(a))
      throw new RangeError(
        "Duration field ".concat(
          a,
          " not supported by Temporal.Instant. Try Temporal.ZonedDateTime instead.",
        ),
      );
    var o = ToInternalDurationRecordWith24HourDays(r);
    return CreateTemporalInstant(AddInstant(GetSlot(t, v), o.time));
  }
  function AddDurationToDate(e, t, n, r) {
    var a = GetSlot(t, T),
      o = ToTemporalDuration(n);
    "subtract" === e && (o = CreateNegatedTemporalDuration(o));
    var i = ToDateDurationRecordWithoutTime(o),
      u = GetTemporalOverflowOption(GetOptionsObject(r));
    return CreateTemporalDate(CalendarDateAdd(a, GetSlot(t, D), i, u), a);
  }
  function AddDurationToDateTime(e, t, n, r) {
    var a = ToTemporalDuration(n);
    "subtract" === e && (a = CreateNegatedTemporalDuration(a));
    var o = GetTemporalOverflowOption(GetOptionsObject(r)),
      i = GetSlot(t, T),
      u = ToInternalDurationRecordWith24HourDays(a),
      s = GetSlot(t, g),
      l = AddTime(s.time, u.time),
      c = AdjustDateDurationRecord(u.date, l.deltaDays);
    return (
      RejectDuration(c.years, c.months, c.weeks, c.days, 0, 0, 0, 0, 0, 0),
      CreateTemporalDateTime(
        CombineISODateAndTimeRecord(CalendarDateAdd(i, s.isoDate, c, o), l),
        i,
      )
    );
  }
  function AddDurationToTime(e, t, n) {
    var r = ToTemporalDuration(n);
    "subtract" === e && (r = CreateNegatedTemporalDuration(r));
    var a = ToInternalDurationRecordWith24HourDays(r),
      o = AddTime(GetSlot(t, y), a.time);
    return CreateTemporalTime(
      RegulateTime(
        o.hour,
        o.minute,
        o.second,
        o.millisecond,
        o.microsecond,
        o.nanosecond,
        "reject",
      ),
    );
  }
  function AddDurationToYearMonth(e, t, n, r) {
    var a = ToTemporalDuration(n);
    "subtract" === e && (a = CreateNegatedTemporalDuration(a));
    var o = GetTemporalOverflowOption(GetOptionsObject(r)),
      i = DurationSign(a),
      u = GetSlot(t, T),
      s = ISODateToFields(u, GetSlot(t, D), "year-month");
    s.day = 1;
    var l = CalendarDateFromFields(u, s, "constrain");
    if (i < 0) {
      var c = CalendarDateAdd(u, l, { months: 1 }, "constrain");
      l = BalanceISODate(c.year, c.month, c.day - 1);
    }
    var d = ToDateDurationRecordWithoutTime(a);
    return (
      RejectDateRange(l),
      CreateTemporalYearMonth(
        CalendarYearMonthFromFields(
          u,
          ISODateToFields(u, CalendarDateAdd(u, l, d, o), "year-month"),
          o,
        ),
        u,
      )
    );
  }
  function AddDurationToZonedDateTime(e, t, n, r) {
    var a = ToTemporalDuration(n);
    "subtract" === e && (a = CreateNegatedTemporalDuration(a));
    var o = GetTemporalOverflowOption(GetOptionsObject(r)),
      i = GetSlot(t, _),
      u = GetSlot(t, T),
      s = ToInternalDurationRecord(a);
    return CreateTemporalZonedDateTime(
      AddZonedDateTime(GetSlot(t, v), i, u, s, o),
      i,
      u,
    );
  }
  function RoundNumberToIncrement(e, t, n) {
    var r = Math.trunc(e / t),
      a = e % t,
      o = e < 0 ? "negative" : "positive",
      i = Math.abs(r),
      u = i + 1,
      s = ComparisonResult(Math.abs(2 * a) - t),
      l = i % 2 == 0,
      c = GetUnsignedRoundingMode(n, o),
      d = 0 === a ? i : ApplyUnsignedRoundingMode(i, u, s, l, c);
    return t * ("positive" === o ? d : -d);
  }
  function RoundTemporalInstant(e, n, r, u) {
    var s = Je[r] * n;
    return (function RoundNumberToIncrementAsIfPositive(e, n, r) {
      var u,
        s,
        l = ensureJSBI(e),
        c = ensureJSBI(n),
        d = t.divide(l, c),
        m = t.remainder(l, c),
        h = GetUnsignedRoundingMode(r, "positive");
      t.lessThan(l, a)
        ? ((u = t.subtract(d, o)), (s = d))
        : ((u = d), (s = t.add(d, o)));
      var f =
          compare(abs(t.multiply(m, i)), c) * (t.lessThan(l, a) ? -1 : 1) + 0,
        p = t.equal(m, a)
          ? d
          : ApplyUnsignedRoundingMode(u, s, f, isEven(u), h);
      return t.multiply(p, c);
    })(e, t.BigInt(s), u);
  }
  function RoundISODateTime(e, t, n, r) {
    AssertISODateTimeWithinLimits(e);
    var a = e.isoDate,
      o = a.year,
      i = a.month,
      u = a.day,
      s = RoundTime(e.time, t, n, r);
    return CombineISODateAndTimeRecord(
      BalanceISODate(o, i, u + s.deltaDays),
      s,
    );
  }
  function RoundTime(e, t, n, r) {
    var a,
      o = e.hour,
      i = e.minute,
      u = e.second,
      s = e.millisecond,
      l = e.microsecond,
      c = e.nanosecond;
    switch (n) {
      case "day":
      case "hour":
        a = 1e3 * (1e3 * (1e3 * (60 * (60 * o + i) + u) + s) + l) + c;
        break;
      case "minute":
        a = 1e3 * (1e3 * (1e3 * (60 * i + u) + s) + l) + c;
        break;
      case "second":
        a = 1e3 * (1e3 * (1e3 * u + s) + l) + c;
        break;
      case "millisecond":
        a = 1e3 * (1e3 * s + l) + c;
        break;
      case "microsecond":
        a = 1e3 * l + c;
        break;
      case "nanosecond":
        a = c;
    }
    var d = Je[n],
      m = RoundNumberToIncrement(a, d * t, r) / d;
    switch (n) {
      case "day":
        return {
          deltaDays: m,
          hour: 0,
          minute: 0,
          second: 0,
          millisecond: 0,
          microsecond: 0,
          nanosecond: 0,
        };
      case "hour":
        return BalanceTime(m, 0, 0, 0, 0, 0);
      case "minute":
        return BalanceTime(o, m, 0, 0, 0, 0);
      case "second":
        return BalanceTime(o, i, m, 0, 0, 0);
      case "millisecond":
        return BalanceTime(o, i, u, m, 0, 0);
      case "microsecond":
        return BalanceTime(o, i, u, s, m, 0);
      case "nanosecond":
        return BalanceTime(o, i, u, s, l, m);
      default:
        throw new Error("Invalid unit ".concat(n));
    }
  }
  function RoundTimeDuration(e, n, r, a) {
    var o = Je[r];
    return e.round(t.BigInt(o * n), a);
  }
  function TotalTimeDuration(e, n) {
    var r = Je[n];
    return e.fdiv(t.BigInt(r));
  }
  function CompareISODate(e, t) {
    return e.year !== t.year
      ? ComparisonResult(e.year - t.year)
      : e.month !== t.month
        ? ComparisonResult(e.month - t.month)
        : e.day !== t.day
          ? ComparisonResult(e.day - t.day)
          : 0;
  }
  function CompareTimeRecord(e, t) {
    return e.hour !== t.hour
      ? ComparisonResult(e.hour - t.hour)
      : e.minute !== t.minute
        ? ComparisonResult(e.minute - t.minute)
        : e.second !== t.second
          ? ComparisonResult(e.second - t.second)
          : e.millisecond !== t.millisecond
            ? ComparisonResult(e.millisecond - t.millisecond)
            : e.microsecond !== t.microsecond
              ? ComparisonResult(e.microsecond - t.microsecond)
              : e.nanosecond !== t.nanosecond
                ? ComparisonResult(e.nanosecond - t.nanosecond)
                : 0;
  }
  function CompareISODateTime(e, t) {
    var n = CompareISODate(e.isoDate, t.isoDate);
    return 0 !== n ? n : CompareTimeRecord(e.time, t.time);
  }
  function ToBigIntExternal(e) {
    var t = ToBigInt(e);
    return void 0 !== globalThis.BigInt ? globalThis.BigInt(t.toString(10)) : t;
  }
  function epochNsToMs(e, n) {
    var r = divmod(ensureJSBI(e), d),
      a = r.quotient,
      o = r.remainder,
      i = t.toNumber(a);
    return (
      "floor" === n && t.toNumber(o) < 0 && (i -= 1),
      "ceil" === n && t.toNumber(o) > 0 && (i += 1),
      i
    );
  }
  function epochMsToNs(e) {
    if (!Number.isInteger(e))
      throw new RangeError("epoch milliseconds must be an integer");
    return t.multiply(t.BigInt(e), d);
  }
  function ToBigInt(e) {
    var n = e;
    if ("object" === _typeof(e)) {
      var r = e[Symbol.toPrimitive];
      r && "function" == typeof r && (n = r.call(e, "number"));
    }
    if ("number" == typeof n)
      throw new TypeError("cannot convert number to bigint");
    return "bigint" == typeof n ? t.BigInt(n.toString(10)) : t.BigInt(n);
  }
  var $e,
    Ve =
      (($e = t.BigInt(Date.now() % 1e6)),
      function () {
        var e = Date.now(),
          n = t.BigInt(e),
          r = t.add(epochMsToNs(e), $e);
        return (
          ($e = t.remainder(n, d)),
          t.greaterThan(r, Ce) ? Ce : t.lessThan(r, _e) ? _e : r
        );
      });
  function DefaultTimeZone() {
    return new Intl.DateTimeFormat().resolvedOptions().timeZone;
  }
  function ComparisonResult(e) {
    return e < 0 ? -1 : e > 0 ? 1 : e;
  }
  function GetOptionsObject(e) {
    if (void 0 === e) return Object.create(null);
    if (IsObject(e) && null !== e) return e;
    throw new TypeError(
      "Options parameter must be an object, not ".concat(
        null === e ? "null" : "".concat(_typeof(e)),
      ),
    );
  }
  function CreateOnePropObject(e, t) {
    var n = Object.create(null);
    return ((n[e] = t), n);
  }
  function GetOption(e, t, n, r) {
    var a = e[t];
    if (void 0 !== a) {
      if (((a = ToString(a)), !n.includes(a)))
        throw new RangeError(
          ""
            .concat(t, " must be one of ")
            .concat(n.join(", "), ", not ")
            .concat(a),
        );
      return a;
    }
    if (r === We) throw new RangeError("".concat(t, " option is required"));
    return r;
  }
  function CanonicalizeCalendar(e) {
    var t = ASCIILowercase(e);
    if (!Be.includes(ASCIILowercase(t)))
      throw new RangeError("invalid calendar identifier ".concat(t));
    switch (t) {
      case "ethiopic-amete-alem":
        return "ethioaa";
      case "islamicc":
        return "islamic-civil";
    }
    return t;
  }
  function ASCIILowercase(e) {
    for (var t = "", n = 0; n < e.length; n++) {
      var r = e.charCodeAt(n);
      t +=
        r >= 65 && r <= 90
          ? String.fromCharCode(r + 32)
          : String.fromCharCode(r);
    }
    return t;
  }
  function ValueOfThrows(e) {
    var t =
      "PlainMonthDay" === e
        ? "Temporal.PlainDate.compare(obj1.toPlainDate(year), obj2.toPlainDate(year))"
        : "Temporal.".concat(e, ".compare(obj1, obj2)");
    throw new TypeError(
      "Do not use built-in arithmetic operators with Temporal objects. " +
        "When comparing, use ".concat(t, ", not obj1 > obj2. ") +
        "When coercing to strings, use `${obj}` or String(obj), not '' + obj. When coercing to numbers, use properties or methods of the object, not `+obj`. When concatenating with strings, use `${str}${obj}` or str.concat(obj), not str + obj. In React, coerce to a string before rendering a Temporal object.",
    );
  }
  var Ke = new RegExp("^".concat(le.source, "$")),
    Xe = new RegExp(
      "^".concat(
        /([+-])([01][0-9]|2[0-3])(?::?([0-5][0-9])(?::?([0-5][0-9])(?:[.,](\d{1,9}))?)?)?/
          .source,
        "$",
      ),
    );
  function bisect(e, t, n) {
    for (
      var r = t,
        a = n,
        o =
          arguments.length > 3 && void 0 !== arguments[3] ? arguments[3] : e(t),
        i =
          arguments.length > 4 && void 0 !== arguments[4] ? arguments[4] : e(n);
      a - r > 1;

    ) {
      var u = Math.trunc((r + a) / 2),
        s = e(u);
      s === o ? ((r = u), (o = s)) : s === i && ((a = u), (i = s));
    }
    return a;
  }
  function arrayFromSet(e) {
    return _toConsumableArray(e);
  }
  function calendarDateWeekOfYear(e, t) {
    if ("gregory" === e || "iso8601" === e) {
      var n = Qe[e],
        r = t.year,
        a = n.isoToDate(t, { dayOfWeek: !0, dayOfYear: !0, daysInYear: !0 }),
        o = a.dayOfWeek,
        i = a.dayOfYear,
        u = a.daysInYear,
        s = n.getFirstDayOfWeek(),
        l = n.getMinimalDaysInFirstWeek(),
        c = (o + 7 - s) % 7,
        d = (o - i + 7001 - s) % 7,
        m = Math.floor((i - 1 + d) / 7);
      if ((7 - d >= l && ++m, 0 == m))
        ((m = (function weekNumber(e, t, n, r) {
          var a = (r - e - n + 1) % 7;
          a < 0 && (a += 7);
          var o = Math.floor((n + a - 1) / 7);
          return (7 - a >= t && ++o, o);
        })(
          s,
          l,
          i +
            n.isoToDate(n.dateAdd(t, { years: -1 }, "constrain"), {
              daysInYear: !0,
            }).daysInYear,
          o,
        )),
          r--);
      else if (i >= u - 5) {
        var h = (c + u - i) % 7;
        (h < 0 && (h += 7), 6 - h >= l && i + 7 - c > u && ((m = 1), r++));
      }
      return { week: m, year: r };
    }
  }
  function ISODateSurpasses(e, t, n, r, a) {
    if (t !== a.year) {
      if (e * (t - a.year) > 0) return !0;
    } else if (n !== a.month) {
      if (e * (n - a.month) > 0) return !0;
    } else if (r !== a.day && e * (r - a.day) > 0) return !0;
    return !1;
  }
  var Qe = {};
  function nonLeapMonthCodeNumberPart(e) {
    if (!e.startsWith("M"))
      throw new RangeError(
        "Invalid month code: ".concat(e, ".  Month codes must start with M."),
      );
    var t = +e.slice(1);
    if (Number.isNaN(t)) throw new RangeError("Invalid month code: ".concat(e));
    return t;
  }
  function buildMonthCode(e) {
    var t = arguments.length > 1 && void 0 !== arguments[1] && arguments[1],
      n = "".concat(e).padStart(2, "0"),
      r = t ? "L" : "";
    return "M".concat(n).concat(r);
  }
  function resolveNonLunisolarMonth(e) {
    var t =
        arguments.length > 1 && void 0 !== arguments[1] ? arguments[1] : void 0,
      n = arguments.length > 2 && void 0 !== arguments[2] ? arguments[2] : 12,
      r = e.month,
      a = e.monthCode;
    if (void 0 === a) {
      if (void 0 === r)
        throw new TypeError("Either month or monthCode are required");
      ("reject" === t && RejectToRange(r, 1, n),
        "constrain" === t && (r = ConstrainToRange(r, 1, n)),
        (a = buildMonthCode(r)));
    } else {
      var o = nonLeapMonthCodeNumberPart(a);
      if (a !== buildMonthCode(o))
        throw new RangeError("Invalid month code: ".concat(a));
      if (void 0 !== r && r !== o)
        throw new RangeError(
          "monthCode "
            .concat(a, " and month ")
            .concat(r, " must match if both are present"),
        );
      if ((r = o) < 1 || r > n)
        throw new RangeError("Invalid monthCode: ".concat(a));
    }
    return _objectSpread2(
      _objectSpread2({}, e),
      {},
      { month: r, monthCode: a },
    );
  }
  Qe.iso8601 = {
    resolveFields: function resolveFields(e, t) {
      if (("date" === t || "year-month" === t) && void 0 === e.year)
        throw new TypeError("year is required");
      if (("date" === t || "month-day" === t) && void 0 === e.day)
        throw new TypeError("day is required");
      Object.assign(e, resolveNonLunisolarMonth(e));
    },
    dateToISO: function dateToISO(e, t) {
      return RegulateISODate(e.year, e.month, e.day, t);
    },
    monthDayToISOReferenceDate: function monthDayToISOReferenceDate(e, t) {
      var n,
        r = RegulateISODate(
          null !== (n = e.year) && void 0 !== n ? n : 1972,
          e.month,
          e.day,
          t,
        );
      return { month: r.month, day: r.day, year: 1972 };
    },
    extraFields: function extraFields() {
      return [];
    },
    fieldKeysToIgnore: function fieldKeysToIgnore(e) {
      for (var t = new Set(), n = 0; n < e.length; n++) {
        var r = e[n];
        (t.add(r),
          "month" === r
            ? t.add("monthCode")
            : "monthCode" === r && t.add("month"));
      }
      return arrayFromSet(t);
    },
    dateAdd: function dateAdd(e, t, n) {
      var r = t.years,
        a = void 0 === r ? 0 : r,
        o = t.months,
        i = void 0 === o ? 0 : o,
        u = t.weeks,
        s = void 0 === u ? 0 : u,
        l = t.days,
        c = void 0 === l ? 0 : l,
        d = e.year,
        m = e.month,
        h = e.day,
        f = BalanceISOYearMonth((d += a), (m += i)),
        p = RegulateISODate((d = f.year), (m = f.month), h, n);
      return (
        (d = p.year),
        (m = p.month),
        (h = p.day),
        BalanceISODate(d, m, (h += c + 7 * s))
      );
    },
    dateUntil: function dateUntil(e, t, n) {
      var r = -CompareISODate(e, t);
      if (0 === r) return { years: 0, months: 0, weeks: 0, days: 0 };
      var a,
        o = 0,
        i = 0;
      if ("year" === n || "month" === n) {
        var u = t.year - e.year;
        for (
          0 !== u && (u -= r);
          !ISODateSurpasses(r, e.year + u, e.month, e.day, t);

        )
          ((o = u), (u += r));
        var s = r;
        for (
          a = BalanceISOYearMonth(e.year + o, e.month + s);
          !ISODateSurpasses(r, a.year, a.month, e.day, t);

        )
          ((i = s), (s += r), (a = BalanceISOYearMonth(a.year, a.month + r)));
        "month" === n && ((i += 12 * o), (o = 0));
      }
      var l = ConstrainISODate(
          (a = BalanceISOYearMonth(e.year + o, e.month + i)).year,
          a.month,
          e.day,
        ),
        c = 0,
        d =
          ISODateToEpochDays(t.year, t.month - 1, t.day) -
          ISODateToEpochDays(l.year, l.month - 1, l.day);
      return (
        "week" === n && ((c = Math.trunc(d / 7)), (d %= 7)),
        { years: o, months: i, weeks: c, days: d }
      );
    },
    isoToDate: function isoToDate(e, t) {
      var n = e.year,
        r = e.month,
        a = e.day,
        o = {
          era: void 0,
          eraYear: void 0,
          year: n,
          month: r,
          day: a,
          daysInWeek: 7,
          monthsInYear: 12,
        };
      if ((t.monthCode && (o.monthCode = buildMonthCode(r)), t.dayOfWeek)) {
        var i = r + (r < 3 ? 10 : -2),
          u = n - (r < 3 ? 1 : 0),
          s = Math.floor(u / 100),
          l = u - 100 * s,
          c =
            (a +
              Math.floor(2.6 * i - 0.2) +
              (l + Math.floor(l / 4)) +
              (Math.floor(s / 4) - 2 * s)) %
            7;
        o.dayOfWeek = c + (c <= 0 ? 7 : 0);
      }
      if (t.dayOfYear) {
        for (var d = a, m = r - 1; m > 0; m--) d += ISODaysInMonth(n, m);
        o.dayOfYear = d;
      }
      return (
        t.weekOfYear &&
          (o.weekOfYear = calendarDateWeekOfYear("iso8601", {
            year: n,
            month: r,
            day: a,
          })),
        t.daysInMonth && (o.daysInMonth = ISODaysInMonth(n, r)),
        (t.daysInYear || t.inLeapYear) &&
          ((o.inLeapYear = LeapYear(n)),
          (o.daysInYear = o.inLeapYear ? 366 : 365)),
        o
      );
    },
    getFirstDayOfWeek: function getFirstDayOfWeek() {
      return 1;
    },
    getMinimalDaysInFirstWeek: function getMinimalDaysInFirstWeek() {
      return 4;
    },
  };
  var et = (function () {
    function OneObjectCache(e) {
      if (
        (_classCallCheck(this, OneObjectCache),
        (this.map = new Map()),
        (this.calls = 0),
        (this.hits = 0),
        (this.misses = 0),
        void 0 !== e)
      ) {
        var t,
          n = 0,
          r = _createForOfIteratorHelper(e.map.entries());
        try {
          for (r.s(); !(t = r.n()).done; ) {
            var a,
              o = t.value;
            if (++n > OneObjectCache.MAX_CACHE_ENTRIES) break;
            (a = this.map).set.apply(a, _toConsumableArray(o));
          }
        } catch (e) {
          r.e(e);
        } finally {
          r.f();
        }
      }
    }
    return (
      _createClass(
        OneObjectCache,
        [
          {
            key: "get",
            value: function get(e) {
              var t = this.map.get(e);
              return (t && (this.hits++, this.report()), this.calls++, t);
            },
          },
          {
            key: "set",
            value: function set(e, t) {
              (this.map.set(e, t), this.misses++, this.report());
            },
          },
          { key: "report", value: function report() {} },
          {
            key: "setObject",
            value: function setObject(e) {
              if (OneObjectCache.objectMap.get(e))
                throw new RangeError("object already cached");
              (OneObjectCache.objectMap.set(e, this), this.report());
            },
          },
        ],
        [
          {
            key: "getCacheForObject",
            value: function getCacheForObject(e) {
              var t = OneObjectCache.objectMap.get(e);
              return (
                t ||
                  ((t = new OneObjectCache()),
                  OneObjectCache.objectMap.set(e, t)),
                t
              );
            },
          },
        ],
      ),
      OneObjectCache
    );
  })();
  function toUtcIsoDateString(e) {
    var t = e.isoYear,
      n = e.isoMonth,
      r = e.isoDay,
      a = ISOYearString(t),
      o = ISODateTimePartString(n),
      i = ISODateTimePartString(r);
    return "".concat(a, "-").concat(o, "-").concat(i, "T00:00Z");
  }
  function simpleDateDiff(e, t) {
    return {
      years: e.year - t.year,
      months: e.month - t.month,
      days: e.day - t.day,
    };
  }
  ((et.objectMap = new WeakMap()), (et.MAX_CACHE_ENTRIES = 1e3));
  var tt = (function () {
      function HelperBase() {
        (_classCallCheck(this, HelperBase),
          (this.eras = []),
          (this.hasEra = !1),
          (this.erasBeginMidYear = !1));
      }
      return (
        _createClass(HelperBase, [
          {
            key: "getFormatter",
            value: function getFormatter() {
              return (
                void 0 === this.formatter &&
                  (this.formatter = new Intl.DateTimeFormat(
                    "en-US-u-ca-".concat(this.id),
                    {
                      day: "numeric",
                      month: "numeric",
                      year: "numeric",
                      era: "short",
                      timeZone: "UTC",
                    },
                  )),
                this.formatter
              );
            },
          },
          {
            key: "getCalendarParts",
            value: function getCalendarParts(e) {
              var t = this.getFormatter(),
                n = new Date(e);
              if ("-271821-04-19T00:00Z" === e) {
                var r = t.resolvedOptions();
                ((t = new Intl.DateTimeFormat(
                  r.locale,
                  _objectSpread2(
                    _objectSpread2({}, r),
                    {},
                    { timeZone: "Etc/GMT+1" },
                  ),
                )),
                  (n = new Date("-271821-04-20T00:00Z")));
              }
              try {
                return t.formatToParts(n);
              } catch (t) {
                throw new RangeError("Invalid ISO date: ".concat(e));
              }
            },
          },
          {
            key: "isoToCalendarDate",
            value: function isoToCalendarDate(e, t) {
              var n = this,
                r = e.year,
                a = e.month,
                o = e.day,
                i = JSON.stringify({
                  func: "isoToCalendarDate",
                  isoYear: r,
                  isoMonth: a,
                  isoDay: o,
                  id: this.id,
                }),
                u = t.get(i);
              if (u) return u;
              for (
                var s = toUtcIsoDateString({
                    isoYear: r,
                    isoMonth: a,
                    isoDay: o,
                  }),
                  l = this.getCalendarParts(s),
                  c = {},
                  d = 0;
                d < l.length;
                d++
              ) {
                var m = l[d],
                  h = m.type,
                  f = m.value;
                if (
                  (("year" !== h && "relatedYear" !== h) ||
                    (this.hasEra ? (c.eraYear = +f) : (c.year = +f)),
                  "month" === h)
                ) {
                  var p = /^([0-9]*)(.*?)$/.exec(f);
                  if (!p || 3 != p.length || (!p[1] && !p[2]))
                    throw new RangeError("Unexpected month: ".concat(f));
                  if (((c.month = p[1] ? +p[1] : 1), c.month < 1))
                    throw new RangeError(
                      "Invalid month "
                        .concat(f, " from ")
                        .concat(s, "[u-ca-")
                        .concat(this.id, "]") +
                        " (probably due to https://bugs.chromium.org/p/v8/issues/detail?id=10527)",
                    );
                  if (c.month > 13)
                    throw new RangeError(
                      "Invalid month "
                        .concat(f, " from ")
                        .concat(s, "[u-ca-")
                        .concat(this.id, "]") +
                        " (probably due to https://bugs.chromium.org/p/v8/issues/detail?id=10529)",
                    );
                  p[2] && (c.monthExtra = p[2]);
                }
                ("day" === h && (c.day = +f),
                  this.hasEra &&
                    "era" === h &&
                    null != f &&
                    "" !== f &&
                    (c.era = f
                      .split(" (")[0]
                      .normalize("NFD")
                      .replace(
                        /(?:[\0-\x1F!-,\.\/:-@\[-`\{-\xA9\xAB-\xB4\xB6-\xB9\xBB-\xBF\xD7\xF7\u02C2-\u02C5\u02D2-\u02DF\u02E5-\u02EB\u02ED\u02EF-\u036F\u0375\u0378\u0379\u037E\u0380-\u0385\u0387\u038B\u038D\u03A2\u03F6\u0482-\u0489\u0530\u0557\u0558\u055A-\u055F\u0589-\u05CF\u05EB-\u05EE\u05F3-\u061F\u064B-\u066D\u0670\u06D4\u06D6-\u06E4\u06E7-\u06ED\u06F0-\u06F9\u06FD\u06FE\u0700-\u070F\u0711\u0730-\u074C\u07A6-\u07B0\u07B2-\u07C9\u07EB-\u07F3\u07F6-\u07F9\u07FB-\u07FF\u0816-\u0819\u081B-\u0823\u0825-\u0827\u0829-\u083F\u0859-\u085F\u086B-\u086F\u0888\u088F-\u089F\u08CA-\u0903\u093A-\u093C\u093E-\u094F\u0951-\u0957\u0962-\u0970\u0981-\u0984\u098D\u098E\u0991\u0992\u09A9\u09B1\u09B3-\u09B5\u09BA-\u09BC\u09BE-\u09CD\u09CF-\u09DB\u09DE\u09E2-\u09EF\u09F2-\u09FB\u09FD-\u0A04\u0A0B-\u0A0E\u0A11\u0A12\u0A29\u0A31\u0A34\u0A37\u0A3A-\u0A58\u0A5D\u0A5F-\u0A71\u0A75-\u0A84\u0A8E\u0A92\u0AA9\u0AB1\u0AB4\u0ABA-\u0ABC\u0ABE-\u0ACF\u0AD1-\u0ADF\u0AE2-\u0AF8\u0AFA-\u0B04\u0B0D\u0B0E\u0B11\u0B12\u0B29\u0B31\u0B34\u0B3A-\u0B3C\u0B3E-\u0B5B\u0B5E\u0B62-\u0B70\u0B72-\u0B82\u0B84\u0B8B-\u0B8D\u0B91\u0B96-\u0B98\u0B9B\u0B9D\u0BA0-\u0BA2\u0BA5-\u0BA7\u0BAB-\u0BAD\u0BBA-\u0BCF\u0BD1-\u0C04\u0C0D\u0C11\u0C29\u0C3A-\u0C3C\u0C3E-\u0C57\u0C5B\u0C5C\u0C5E\u0C5F\u0C62-\u0C7F\u0C81-\u0C84\u0C8D\u0C91\u0CA9\u0CB4\u0CBA-\u0CBC\u0CBE-\u0CDC\u0CDF\u0CE2-\u0CF0\u0CF3-\u0D03\u0D0D\u0D11\u0D3B\u0D3C\u0D3E-\u0D4D\u0D4F-\u0D53\u0D57-\u0D5E\u0D62-\u0D79\u0D80-\u0D84\u0D97-\u0D99\u0DB2\u0DBC\u0DBE\u0DBF\u0DC7-\u0E00\u0E31\u0E34-\u0E3F\u0E47-\u0E80\u0E83\u0E85\u0E8B\u0EA4\u0EA6\u0EB1\u0EB4-\u0EBC\u0EBE\u0EBF\u0EC5\u0EC7-\u0EDB\u0EE0-\u0EFF\u0F01-\u0F3F\u0F48\u0F6D-\u0F87\u0F8D-\u0FFF\u102B-\u103E\u1040-\u104F\u1056-\u1059\u105E-\u1060\u1062-\u1064\u1067-\u106D\u1071-\u1074\u1082-\u108D\u108F-\u109F\u10C6\u10C8-\u10CC\u10CE\u10CF\u10FB\u1249\u124E\u124F\u1257\u1259\u125E\u125F\u1289\u128E\u128F\u12B1\u12B6\u12B7\u12BF\u12C1\u12C6\u12C7\u12D7\u1311\u1316\u1317\u135B-\u137F\u1390-\u139F\u13F6\u13F7\u13FE-\u1400\u166D\u166E\u1680\u169B-\u169F\u16EB-\u16F0\u16F9-\u16FF\u1712-\u171E\u1732-\u173F\u1752-\u175F\u176D\u1771-\u177F\u17B4-\u17D6\u17D8-\u17DB\u17DD-\u181F\u1879-\u187F\u1885\u1886\u18A9\u18AB-\u18AF\u18F6-\u18FF\u191F-\u194F\u196E\u196F\u1975-\u197F\u19AC-\u19AF\u19CA-\u19FF\u1A17-\u1A1F\u1A55-\u1AA6\u1AA8-\u1B04\u1B34-\u1B44\u1B4D-\u1B82\u1BA1-\u1BAD\u1BB0-\u1BB9\u1BE6-\u1BFF\u1C24-\u1C4C\u1C50-\u1C59\u1C7E\u1C7F\u1C89-\u1C8F\u1CBB\u1CBC\u1CC0-\u1CE8\u1CED\u1CF4\u1CF7-\u1CF9\u1CFB-\u1CFF\u1DC0-\u1DFF\u1F16\u1F17\u1F1E\u1F1F\u1F46\u1F47\u1F4E\u1F4F\u1F58\u1F5A\u1F5C\u1F5E\u1F7E\u1F7F\u1FB5\u1FBD\u1FBF-\u1FC1\u1FC5\u1FCD-\u1FCF\u1FD4\u1FD5\u1FDC-\u1FDF\u1FED-\u1FF1\u1FF5\u1FFD-\u2070\u2072-\u207E\u2080-\u208F\u209D-\u2101\u2103-\u2106\u2108\u2109\u2114\u2116-\u2118\u211E-\u2123\u2125\u2127\u2129\u212E\u213A\u213B\u2140-\u2144\u214A-\u214D\u214F-\u2182\u2185-\u2BFF\u2CE5-\u2CEA\u2CEF-\u2CF1\u2CF4-\u2CFF\u2D26\u2D28-\u2D2C\u2D2E\u2D2F\u2D68-\u2D6E\u2D70-\u2D7F\u2D97-\u2D9F\u2DA7\u2DAF\u2DB7\u2DBF\u2DC7\u2DCF\u2DD7\u2DDF-\u2E2E\u2E30-\u3004\u3007-\u3030\u3036-\u303A\u303D-\u3040\u3097-\u309C\u30A0\u30FB\u3100-\u3104\u3130\u318F-\u319F\u31C0-\u31EF\u3200-\u33FF\u4DC0-\u4DFF\uA48D-\uA4CF\uA4FE\uA4FF\uA60D-\uA60F\uA620-\uA629\uA62C-\uA63F\uA66F-\uA67E\uA69E\uA69F\uA6E6-\uA716\uA720\uA721\uA789\uA78A\uA7CB-\uA7CF\uA7D2\uA7D4\uA7DA-\uA7F1\uA802\uA806\uA80B\uA823-\uA83F\uA874-\uA881\uA8B4-\uA8F1\uA8F8-\uA8FA\uA8FC\uA8FF-\uA909\uA926-\uA92F\uA947-\uA95F\uA97D-\uA983\uA9B3-\uA9CE\uA9D0-\uA9DF\uA9E5\uA9F0-\uA9F9\uA9FF\uAA29-\uAA3F\uAA43\uAA4C-\uAA5F\uAA77-\uAA79\uAA7B-\uAA7D\uAAB0\uAAB2-\uAAB4\uAAB7\uAAB8\uAABE\uAABF\uAAC1\uAAC3-\uAADA\uAADE\uAADF\uAAEB-\uAAF1\uAAF5-\uAB00\uAB07\uAB08\uAB0F\uAB10\uAB17-\uAB1F\uAB27\uAB2F\uAB5B\uAB6A-\uAB6F\uABE3-\uABFF\uD7A4-\uD7AF\uD7C7-\uD7CA\uD7FC-\uD7FF\uE000-\uF8FF\uFA6E\uFA6F\uFADA-\uFAFF\uFB07-\uFB12\uFB18-\uFB1C\uFB1E\uFB29\uFB37\uFB3D\uFB3F\uFB42\uFB45\uFBB2-\uFBD2\uFD3E-\uFD4F\uFD90\uFD91\uFDC8-\uFDEF\uFDFC-\uFE6F\uFE75\uFEFD-\uFF20\uFF3B-\uFF40\uFF5B-\uFF65\uFFBF-\uFFC1\uFFC8\uFFC9\uFFD0\uFFD1\uFFD8\uFFD9\uFFDD-\uFFFF]|\uD800[\uDC0C\uDC27\uDC3B\uDC3E\uDC4E\uDC4F\uDC5E-\uDC7F\uDCFB-\uDE7F\uDE9D-\uDE9F\uDED1-\uDEFF\uDF20-\uDF2C\uDF41\uDF4A-\uDF4F\uDF76-\uDF7F\uDF9E\uDF9F\uDFC4-\uDFC7\uDFD0-\uDFFF]|\uD801[\uDC9E-\uDCAF\uDCD4-\uDCD7\uDCFC-\uDCFF\uDD28-\uDD2F\uDD64-\uDD6F\uDD7B\uDD8B\uDD93\uDD96\uDDA2\uDDB2\uDDBA\uDDBD-\uDDFF\uDF37-\uDF3F\uDF56-\uDF5F\uDF68-\uDF7F\uDF86\uDFB1\uDFBB-\uDFFF]|\uD802[\uDC06\uDC07\uDC09\uDC36\uDC39-\uDC3B\uDC3D\uDC3E\uDC56-\uDC5F\uDC77-\uDC7F\uDC9F-\uDCDF\uDCF3\uDCF6-\uDCFF\uDD16-\uDD1F\uDD3A-\uDD7F\uDDB8-\uDDBD\uDDC0-\uDDFF\uDE01-\uDE0F\uDE14\uDE18\uDE36-\uDE5F\uDE7D-\uDE7F\uDE9D-\uDEBF\uDEC8\uDEE5-\uDEFF\uDF36-\uDF3F\uDF56-\uDF5F\uDF73-\uDF7F\uDF92-\uDFFF]|\uD803[\uDC49-\uDC7F\uDCB3-\uDCBF\uDCF3-\uDCFF\uDD24-\uDE7F\uDEAA-\uDEAF\uDEB2-\uDEFF\uDF1D-\uDF26\uDF28-\uDF2F\uDF46-\uDF6F\uDF82-\uDFAF\uDFC5-\uDFDF\uDFF7-\uDFFF]|\uD804[\uDC00-\uDC02\uDC38-\uDC70\uDC73\uDC74\uDC76-\uDC82\uDCB0-\uDCCF\uDCE9-\uDD02\uDD27-\uDD43\uDD45\uDD46\uDD48-\uDD4F\uDD73-\uDD75\uDD77-\uDD82\uDDB3-\uDDC0\uDDC5-\uDDD9\uDDDB\uDDDD-\uDDFF\uDE12\uDE2C-\uDE3E\uDE41-\uDE7F\uDE87\uDE89\uDE8E\uDE9E\uDEA9-\uDEAF\uDEDF-\uDF04\uDF0D\uDF0E\uDF11\uDF12\uDF29\uDF31\uDF34\uDF3A-\uDF3C\uDF3E-\uDF4F\uDF51-\uDF5C\uDF62-\uDFFF]|\uD805[\uDC35-\uDC46\uDC4B-\uDC5E\uDC62-\uDC7F\uDCB0-\uDCC3\uDCC6\uDCC8-\uDD7F\uDDAF-\uDDD7\uDDDC-\uDDFF\uDE30-\uDE43\uDE45-\uDE7F\uDEAB-\uDEB7\uDEB9-\uDEFF\uDF1B-\uDF3F\uDF47-\uDFFF]|\uD806[\uDC2C-\uDC9F\uDCE0-\uDCFE\uDD07\uDD08\uDD0A\uDD0B\uDD14\uDD17\uDD30-\uDD3E\uDD40\uDD42-\uDD9F\uDDA8\uDDA9\uDDD1-\uDDE0\uDDE2\uDDE4-\uDDFF\uDE01-\uDE0A\uDE33-\uDE39\uDE3B-\uDE4F\uDE51-\uDE5B\uDE8A-\uDE9C\uDE9E-\uDEAF\uDEF9-\uDFFF]|\uD807[\uDC09\uDC2F-\uDC3F\uDC41-\uDC71\uDC90-\uDCFF\uDD07\uDD0A\uDD31-\uDD45\uDD47-\uDD5F\uDD66\uDD69\uDD8A-\uDD97\uDD99-\uDEDF\uDEF3-\uDF01\uDF03\uDF11\uDF34-\uDFAF\uDFB1-\uDFFF]|\uD808[\uDF9A-\uDFFF]|\uD809[\uDC00-\uDC7F\uDD44-\uDFFF]|[\uD80A\uD80E-\uD810\uD812-\uD819\uD824-\uD82A\uD82D\uD82E\uD830-\uD834\uD836\uD83C-\uD83F\uD87B-\uD87D\uD87F\uD889-\uDBFF][\uDC00-\uDFFF]|\uD80B[\uDC00-\uDF8F\uDFF1-\uDFFF]|\uD80D[\uDC30-\uDC40\uDC47-\uDFFF]|\uD811[\uDE47-\uDFFF]|\uD81A[\uDE39-\uDE3F\uDE5F-\uDE6F\uDEBF-\uDECF\uDEEE-\uDEFF\uDF30-\uDF3F\uDF44-\uDF62\uDF78-\uDF7C\uDF90-\uDFFF]|\uD81B[\uDC00-\uDE3F\uDE80-\uDEFF\uDF4B-\uDF4F\uDF51-\uDF92\uDFA0-\uDFDF\uDFE2\uDFE4-\uDFFF]|\uD821[\uDFF8-\uDFFF]|\uD823[\uDCD6-\uDCFF\uDD09-\uDFFF]|\uD82B[\uDC00-\uDFEF\uDFF4\uDFFC\uDFFF]|\uD82C[\uDD23-\uDD31\uDD33-\uDD4F\uDD53\uDD54\uDD56-\uDD63\uDD68-\uDD6F\uDEFC-\uDFFF]|\uD82F[\uDC6B-\uDC6F\uDC7D-\uDC7F\uDC89-\uDC8F\uDC9A-\uDFFF]|\uD835[\uDC55\uDC9D\uDCA0\uDCA1\uDCA3\uDCA4\uDCA7\uDCA8\uDCAD\uDCBA\uDCBC\uDCC4\uDD06\uDD0B\uDD0C\uDD15\uDD1D\uDD3A\uDD3F\uDD45\uDD47-\uDD49\uDD51\uDEA6\uDEA7\uDEC1\uDEDB\uDEFB\uDF15\uDF35\uDF4F\uDF6F\uDF89\uDFA9\uDFC3\uDFCC-\uDFFF]|\uD837[\uDC00-\uDEFF\uDF1F-\uDF24\uDF2B-\uDFFF]|\uD838[\uDC00-\uDC2F\uDC6E-\uDCFF\uDD2D-\uDD36\uDD3E-\uDD4D\uDD4F-\uDE8F\uDEAE-\uDEBF\uDEEC-\uDFFF]|\uD839[\uDC00-\uDCCF\uDCEC-\uDFDF\uDFE7\uDFEC\uDFEF\uDFFF]|\uD83A[\uDCC5-\uDCFF\uDD44-\uDD4A\uDD4C-\uDFFF]|\uD83B[\uDC00-\uDDFF\uDE04\uDE20\uDE23\uDE25\uDE26\uDE28\uDE33\uDE38\uDE3A\uDE3C-\uDE41\uDE43-\uDE46\uDE48\uDE4A\uDE4C\uDE50\uDE53\uDE55\uDE56\uDE58\uDE5A\uDE5C\uDE5E\uDE60\uDE63\uDE65\uDE66\uDE6B\uDE73\uDE78\uDE7D\uDE7F\uDE8A\uDE9C-\uDEA0\uDEA4\uDEAA\uDEBC-\uDFFF]|\uD869[\uDEE0-\uDEFF]|\uD86D[\uDF3A-\uDF3F]|\uD86E[\uDC1E\uDC1F]|\uD873[\uDEA2-\uDEAF]|\uD87A[\uDFE1-\uDFFF]|\uD87E[\uDE1E-\uDFFF]|\uD884[\uDF4B-\uDF4F]|\uD888[\uDFB0-\uDFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?:[^\uD800-\uDBFF]|^)[\uDC00-\uDFFF])/g,
                        "",
                      )
                      .replace(/ /g, "-")
                      .toLowerCase()));
              }
              if (this.hasEra && void 0 === c.eraYear)
                throw new RangeError(
                  "Intl.DateTimeFormat.formatToParts lacks relatedYear in ".concat(
                    this.id,
                    " calendar. Try Node 14+ or modern browsers.",
                  ),
                );
              if (this.hasEra) {
                var v = this.eras.find(function (e) {
                  return c.era === e.genericName;
                });
                v && (c.era = v.code);
              }
              if (this.reviseIntlEra) {
                var D = this.reviseIntlEra(c, e),
                  g = D.era,
                  y = D.eraYear;
                ((c.era = g), (c.eraYear = y));
              }
              this.checkIcuBugs && this.checkIcuBugs(e);
              var T = this.adjustCalendarDate(c, t, "constrain", !0);
              if (void 0 === T.year)
                throw new RangeError(
                  "Missing year converting ".concat(JSON.stringify(e)),
                );
              if (void 0 === T.month)
                throw new RangeError(
                  "Missing month converting ".concat(JSON.stringify(e)),
                );
              if (void 0 === T.day)
                throw new RangeError(
                  "Missing day converting ".concat(JSON.stringify(e)),
                );
              return (
                t.set(i, T),
                ["constrain", "reject"].forEach(function cacheReverse(r) {
                  var a = JSON.stringify({
                    func: "calendarToIsoDate",
                    year: T.year,
                    month: T.month,
                    day: T.day,
                    overflow: r,
                    id: n.id,
                  });
                  t.set(a, e);
                }),
                T
              );
            },
          },
          {
            key: "validateCalendarDate",
            value: function validateCalendarDate(e) {
              var t = e.month,
                n = e.year,
                r = e.day,
                a = e.eraYear,
                o = e.monthCode;
              if (void 0 !== e.monthExtra)
                throw new RangeError("Unexpected `monthExtra` value");
              if (void 0 === n && void 0 === a)
                throw new TypeError("year or eraYear is required");
              if (void 0 === t && void 0 === o)
                throw new TypeError("month or monthCode is required");
              if (void 0 === r) throw new RangeError("Missing day");
              if (void 0 !== o) {
                if ("string" != typeof o)
                  throw new RangeError(
                    "monthCode must be a string, not ".concat(_typeof(o)),
                  );
                if (!/^M([01]?\d)(L?)$/.test(o))
                  throw new RangeError("Invalid monthCode: ".concat(o));
              }
              if (this.hasEra && (void 0 === e.era) != (void 0 === e.eraYear))
                throw new TypeError(
                  "properties era and eraYear must be provided together",
                );
            },
          },
          {
            key: "adjustCalendarDate",
            value: function adjustCalendarDate(e) {
              var t =
                  arguments.length > 1 && void 0 !== arguments[1]
                    ? arguments[1]
                    : void 0,
                n =
                  arguments.length > 2 && void 0 !== arguments[2]
                    ? arguments[2]
                    : "constrain";
              if ("lunisolar" === this.calendarType)
                throw new RangeError(
                  "Override required for lunisolar calendars",
                );
              var r = e;
              this.validateCalendarDate(r);
              var a = this.monthsInYear(r, t),
                o = r.month,
                i = r.monthCode,
                u = resolveNonLunisolarMonth(r, n, a);
              return (
                (o = u.month),
                (i = u.monthCode),
                _objectSpread2(
                  _objectSpread2({}, r),
                  {},
                  { month: o, monthCode: i },
                )
              );
            },
          },
          {
            key: "regulateMonthDayNaive",
            value: function regulateMonthDayNaive(e, t, n) {
              var r = this.monthsInYear(e, n),
                a = e.month,
                o = e.day;
              return (
                "reject" === t
                  ? (RejectToRange(a, 1, r),
                    RejectToRange(o, 1, this.maximumMonthLength(e)))
                  : ((a = ConstrainToRange(a, 1, r)),
                    (o = ConstrainToRange(
                      o,
                      1,
                      this.maximumMonthLength(
                        _objectSpread2(_objectSpread2({}, e), {}, { month: a }),
                      ),
                    ))),
                _objectSpread2(_objectSpread2({}, e), {}, { month: a, day: o })
              );
            },
          },
          {
            key: "calendarToIsoDate",
            value: function calendarToIsoDate(e) {
              var t,
                n = this,
                r =
                  arguments.length > 1 && void 0 !== arguments[1]
                    ? arguments[1]
                    : "constrain",
                a = arguments.length > 2 ? arguments[2] : void 0,
                o = e,
                i = this.adjustCalendarDate(e, a, r, !1),
                u = (i = this.regulateMonthDayNaive(i, r, a)),
                s = u.year,
                l = u.month,
                c = u.day,
                d = JSON.stringify({
                  func: "calendarToIsoDate",
                  year: s,
                  month: l,
                  day: c,
                  overflow: r,
                  id: this.id,
                }),
                m = a.get(d);
              if (m) return m;
              if (
                void 0 !== o.year &&
                void 0 !== o.month &&
                void 0 !== o.day &&
                (o.year !== i.year || o.month !== i.month || o.day !== i.day) &&
                ((t = JSON.stringify({
                  func: "calendarToIsoDate",
                  year: o.year,
                  month: o.month,
                  day: o.day,
                  overflow: r,
                  id: this.id,
                })),
                (m = a.get(t)))
              )
                return m;
              var h = this.estimateIsoDate({ year: s, month: l, day: c }),
                f = function calculateSameMonthResult(e) {
                  var t = n.addDaysIso(h, e);
                  if (i.day > n.minimumMonthLength(i))
                    for (
                      var o = n.isoToCalendarDate(t, a);
                      o.month !== l || o.year !== s;

                    ) {
                      if ("reject" === r)
                        throw new RangeError(
                          "day "
                            .concat(c, " does not exist in month ")
                            .concat(l, " of year ")
                            .concat(s),
                        );
                      ((t = n.addDaysIso(t, -1)),
                        (o = n.isoToCalendarDate(t, a)));
                    }
                  return t;
                },
                p = 0,
                v = this.isoToCalendarDate(h, a),
                D = simpleDateDiff(i, v);
              if (0 !== D.years || 0 !== D.months || 0 !== D.days) {
                var g = 365 * D.years + 30 * D.months + D.days;
                ((h = this.addDaysIso(h, g)),
                  (v = this.isoToCalendarDate(h, a)),
                  0 === (D = simpleDateDiff(i, v)).years && 0 === D.months
                    ? (h = f(D.days))
                    : (p = this.compareCalendarDates(i, v)));
              }
              for (var y = 8; p; ) {
                h = this.addDaysIso(h, p * y);
                var T = v;
                v = this.isoToCalendarDate(h, a);
                var S = p;
                if ((p = this.compareCalendarDates(i, v)))
                  if (0 === (D = simpleDateDiff(i, v)).years && 0 === D.months)
                    ((h = f(D.days)), (p = 0));
                  else if (S && p !== S)
                    if (y > 1) y /= 2;
                    else {
                      if ("reject" === r)
                        throw new RangeError(
                          "Can't find ISO date from calendar date: ".concat(
                            JSON.stringify(_objectSpread2({}, o)),
                          ),
                        );
                      (this.compareCalendarDates(v, T) > 0 &&
                        (h = this.addDaysIso(h, -1)),
                        (p = 0));
                    }
              }
              if (
                (a.set(d, h),
                t && a.set(t, h),
                void 0 === i.year ||
                  void 0 === i.month ||
                  void 0 === i.day ||
                  void 0 === i.monthCode ||
                  (this.hasEra && (void 0 === i.era || void 0 === i.eraYear)))
              )
                throw new RangeError("Unexpected missing property");
              return h;
            },
          },
          {
            key: "compareCalendarDates",
            value: function compareCalendarDates(e, t) {
              return e.year !== t.year
                ? ComparisonResult(e.year - t.year)
                : e.month !== t.month
                  ? ComparisonResult(e.month - t.month)
                  : e.day !== t.day
                    ? ComparisonResult(e.day - t.day)
                    : 0;
            },
          },
          {
            key: "regulateDate",
            value: function regulateDate(e) {
              var t =
                  arguments.length > 1 && void 0 !== arguments[1]
                    ? arguments[1]
                    : "constrain",
                n = arguments.length > 2 ? arguments[2] : void 0,
                r = this.calendarToIsoDate(e, t, n);
              return this.isoToCalendarDate(r, n);
            },
          },
          {
            key: "addDaysIso",
            value: function addDaysIso(e, t) {
              return BalanceISODate(e.year, e.month, e.day + t);
            },
          },
          {
            key: "addDaysCalendar",
            value: function addDaysCalendar(e, t, n) {
              var r = this.calendarToIsoDate(e, "constrain", n),
                a = this.addDaysIso(r, t);
              return this.isoToCalendarDate(a, n);
            },
          },
          {
            key: "addMonthsCalendar",
            value: function addMonthsCalendar(e, t, n, r) {
              for (var a = e, o = a.day, i = 0, u = Math.abs(t); i < u; i++) {
                var s = a.month,
                  l = a,
                  c =
                    t < 0
                      ? -Math.max(o, this.daysInPreviousMonth(a, r))
                      : this.daysInMonth(a, r),
                  d = this.calendarToIsoDate(a, "constrain", r),
                  m = this.addDaysIso(d, c);
                if (((a = this.isoToCalendarDate(m, r)), t > 0))
                  for (var h = this.monthsInYear(l, r); a.month - 1 != s % h; )
                    ((m = this.addDaysIso(m, -1)),
                      (a = this.isoToCalendarDate(m, r)));
                a.day !== o &&
                  (a = this.regulateDate(
                    _objectSpread2(_objectSpread2({}, a), {}, { day: o }),
                    "constrain",
                    r,
                  ));
              }
              if ("reject" === n && a.day !== o)
                throw new RangeError(
                  "Day ".concat(
                    o,
                    " does not exist in resulting calendar month",
                  ),
                );
              return a;
            },
          },
          {
            key: "addCalendar",
            value: function addCalendar(e, t, n, r) {
              var a = t.years,
                o = void 0 === a ? 0 : a,
                i = t.months,
                u = void 0 === i ? 0 : i,
                s = t.weeks,
                l = void 0 === s ? 0 : s,
                c = t.days,
                d = void 0 === c ? 0 : c,
                m = e.year,
                h = e.day,
                f = e.monthCode,
                p = this.adjustCalendarDate(
                  { year: m + o, monthCode: f, day: h },
                  r,
                ),
                v = this.addMonthsCalendar(p, u, n, r),
                D = d + 7 * l;
              return this.addDaysCalendar(v, D, r);
            },
          },
          {
            key: "untilCalendar",
            value: function untilCalendar(e, t, n, r) {
              var a = 0,
                o = 0,
                i = 0,
                u = 0;
              switch (n) {
                case "day":
                  a = this.calendarDaysUntil(e, t, r);
                  break;
                case "week":
                  var s = this.calendarDaysUntil(e, t, r);
                  o = (s - (a = s % 7)) / 7;
                  break;
                case "month":
                case "year":
                  var l = this.compareCalendarDates(t, e);
                  if (!l) return { years: 0, months: 0, weeks: 0, days: 0 };
                  var c = t.year - e.year,
                    d = t.day - e.day;
                  if ("year" === n && c) {
                    var m = 0;
                    (t.monthCode > e.monthCode && (m = 1),
                      t.monthCode < e.monthCode && (m = -1),
                      m || (m = Math.sign(d)),
                      (u = m * l < 0 ? c - l : c));
                  }
                  var h,
                    f = u
                      ? this.addCalendar(e, { years: u }, "constrain", r)
                      : e;
                  do {
                    ((i += l),
                      (h = f),
                      (f = this.addMonthsCalendar(h, l, "constrain", r)).day !==
                        e.day &&
                        (f = this.regulateDate(
                          _objectSpread2(
                            _objectSpread2({}, f),
                            {},
                            { day: e.day },
                          ),
                          "constrain",
                          r,
                        )));
                  } while (this.compareCalendarDates(t, f) * l >= 0);
                  ((i -= l), (a = this.calendarDaysUntil(h, t, r)));
              }
              return { years: u, months: i, weeks: o, days: a };
            },
          },
          {
            key: "daysInMonth",
            value: function daysInMonth(e, t) {
              var n = e.day,
                r = this.maximumMonthLength(e),
                a = this.minimumMonthLength(e);
              if (a === r) return a;
              var o = n <= r - a ? r : a,
                i = this.calendarToIsoDate(e, "constrain", t),
                u = this.addDaysIso(i, o),
                s = this.isoToCalendarDate(u, t),
                l = this.addDaysIso(u, -s.day);
              return this.isoToCalendarDate(l, t).day;
            },
          },
          {
            key: "daysInPreviousMonth",
            value: function daysInPreviousMonth(e, t) {
              var n = e.day,
                r = e.month,
                a = e.year,
                o = { year: r > 1 ? a : a - 1, month: r, day: 1 },
                i = r > 1 ? r - 1 : this.monthsInYear(o, t);
              o = _objectSpread2(_objectSpread2({}, o), {}, { month: i });
              var u = this.minimumMonthLength(o),
                s = this.maximumMonthLength(o);
              if (u === s) return s;
              var l = this.calendarToIsoDate(e, "constrain", t),
                c = this.addDaysIso(l, -n);
              return this.isoToCalendarDate(c, t).day;
            },
          },
          {
            key: "startOfCalendarYear",
            value: function startOfCalendarYear(e) {
              return { year: e.year, month: 1, monthCode: "M01", day: 1 };
            },
          },
          {
            key: "startOfCalendarMonth",
            value: function startOfCalendarMonth(e) {
              return { year: e.year, month: e.month, day: 1 };
            },
          },
          {
            key: "calendarDaysUntil",
            value: function calendarDaysUntil(e, t, n) {
              var r = this.calendarToIsoDate(e, "constrain", n),
                a = this.calendarToIsoDate(t, "constrain", n);
              return (
                ISODateToEpochDays(a.year, a.month - 1, a.day) -
                ISODateToEpochDays(r.year, r.month - 1, r.day)
              );
            },
          },
          {
            key: "monthDaySearchStartYear",
            value: function monthDaySearchStartYear(e, t) {
              return 1972;
            },
          },
          {
            key: "monthDayFromFields",
            value: function monthDayFromFields(e, t, n) {
              var r,
                a,
                o,
                i,
                u,
                s = e.era,
                l = e.eraYear,
                c = e.year,
                d = e.month,
                m = e.monthCode,
                h = e.day;
              if (
                void 0 !== d &&
                void 0 === c &&
                (!this.hasEra || void 0 === s || void 0 === l)
              )
                throw new TypeError(
                  "when month is present, year (or era and eraYear) are required",
                );
              if (
                void 0 === m ||
                void 0 !== c ||
                (this.hasEra && void 0 !== l)
              ) {
                var f = this.isoToCalendarDate(
                  this.calendarToIsoDate(e, t, n),
                  n,
                );
                ((m = f.monthCode), (h = f.day));
              }
              for (
                var p = {
                    year: this.monthDaySearchStartYear(m, h),
                    month: 12,
                    day: 31,
                  },
                  v = this.isoToCalendarDate(p, n),
                  D =
                    v.monthCode > m || (v.monthCode === m && v.day >= h)
                      ? v.year
                      : v.year - 1,
                  g = 0;
                g < 20;
                g++
              ) {
                var y = this.adjustCalendarDate(
                    { day: h, monthCode: m, year: D - g },
                    n,
                  ),
                  T = this.calendarToIsoDate(y, "constrain", n),
                  S = this.isoToCalendarDate(T, n);
                if (
                  ((r = T.year),
                  (a = T.month),
                  (o = T.day),
                  S.monthCode === m && S.day === h)
                )
                  return { month: a, day: o, year: r };
                if ("constrain" === t) {
                  var I = this.maxLengthOfMonthCodeInAnyYear(S.monthCode);
                  if (S.monthCode === m && S.day === I && h > I)
                    return { month: a, day: o, year: r };
                  (void 0 === i ||
                    (S.monthCode === i.monthCode && S.day > i.day)) &&
                    ((i = S), (u = T));
                }
              }
              if ("constrain" === t && void 0 !== u) return u;
              throw new RangeError(
                "No recent "
                  .concat(this.id, " year with monthCode ")
                  .concat(m, " and day ")
                  .concat(h),
              );
            },
          },
          { key: "getFirstDayOfWeek", value: function getFirstDayOfWeek() {} },
          {
            key: "getMinimalDaysInFirstWeek",
            value: function getMinimalDaysInFirstWeek() {},
          },
        ]),
        HelperBase
      );
    })(),
    nt = (function (e) {
      _inherits(HebrewHelper, e);
      var t = _createSuper(HebrewHelper);
      function HebrewHelper() {
        var e;
        return (
          _classCallCheck(this, HebrewHelper),
          ((e = t.apply(this, arguments)).id = "hebrew"),
          (e.calendarType = "lunisolar"),
          (e.months = {
            Tishri: { leap: 1, regular: 1, monthCode: "M01", days: 30 },
            Heshvan: {
              leap: 2,
              regular: 2,
              monthCode: "M02",
              days: { min: 29, max: 30 },
            },
            Kislev: {
              leap: 3,
              regular: 3,
              monthCode: "M03",
              days: { min: 29, max: 30 },
            },
            Tevet: { leap: 4, regular: 4, monthCode: "M04", days: 29 },
            Shevat: { leap: 5, regular: 5, monthCode: "M05", days: 30 },
            Adar: { leap: void 0, regular: 6, monthCode: "M06", days: 29 },
            "Adar I": { leap: 6, regular: void 0, monthCode: "M05L", days: 30 },
            "Adar II": { leap: 7, regular: void 0, monthCode: "M06", days: 29 },
            Nisan: { leap: 8, regular: 7, monthCode: "M07", days: 30 },
            Iyar: { leap: 9, regular: 8, monthCode: "M08", days: 29 },
            Sivan: { leap: 10, regular: 9, monthCode: "M09", days: 30 },
            Tamuz: { leap: 11, regular: 10, monthCode: "M10", days: 29 },
            Av: { leap: 12, regular: 11, monthCode: "M11", days: 30 },
            Elul: { leap: 13, regular: 12, monthCode: "M12", days: 29 },
          }),
          e
        );
      }
      return (
        _createClass(HebrewHelper, [
          {
            key: "inLeapYear",
            value: function inLeapYear(e) {
              return (7 * e.year + 1) % 19 < 7;
            },
          },
          {
            key: "monthsInYear",
            value: function monthsInYear(e) {
              return this.inLeapYear(e) ? 13 : 12;
            },
          },
          {
            key: "minimumMonthLength",
            value: function minimumMonthLength(e) {
              return this.minMaxMonthLength(e, "min");
            },
          },
          {
            key: "maximumMonthLength",
            value: function maximumMonthLength(e) {
              return this.minMaxMonthLength(e, "max");
            },
          },
          {
            key: "minMaxMonthLength",
            value: function minMaxMonthLength(e, t) {
              var n = e.month,
                r = e.year,
                a = this.getMonthCode(r, n),
                o = Object.entries(this.months).find(function (e) {
                  return e[1].monthCode === a;
                });
              if (void 0 === o)
                throw new RangeError("unmatched Hebrew month: ".concat(n));
              var i = o[1].days;
              return "number" == typeof i ? i : i[t];
            },
          },
          {
            key: "maxLengthOfMonthCodeInAnyYear",
            value: function maxLengthOfMonthCodeInAnyYear(e) {
              return ["M04", "M06", "M08", "M10", "M12"].includes(e) ? 29 : 30;
            },
          },
          {
            key: "estimateIsoDate",
            value: function estimateIsoDate(e) {
              return { year: e.year - 3760, month: 1, day: 1 };
            },
          },
          {
            key: "getMonthCode",
            value: function getMonthCode(e, t) {
              return this.inLeapYear({ year: e })
                ? 6 === t
                  ? buildMonthCode(5, !0)
                  : buildMonthCode(t < 6 ? t : t - 1)
                : buildMonthCode(t);
            },
          },
          {
            key: "adjustCalendarDate",
            value: function adjustCalendarDate(e, t) {
              var n =
                  arguments.length > 2 && void 0 !== arguments[2]
                    ? arguments[2]
                    : "constrain",
                r =
                  arguments.length > 3 &&
                  void 0 !== arguments[3] &&
                  arguments[3],
                a = e.year,
                o = e.month,
                i = e.monthCode,
                u = e.day,
                s = e.monthExtra;
              if (void 0 === a) throw new TypeError("Missing property: year");
              if (r) {
                if (s) {
                  var l = this.months[s];
                  if (!l)
                    throw new RangeError(
                      "Unrecognized month from formatToParts: ".concat(s),
                    );
                  o = this.inLeapYear({ year: a }) ? l.leap : l.regular;
                }
                return {
                  year: a,
                  month: o,
                  day: u,
                  monthCode: (i = this.getMonthCode(a, o)),
                };
              }
              if ((this.validateCalendarDate(e), void 0 === o))
                if (i.endsWith("L")) {
                  if ("M05L" !== i)
                    throw new RangeError(
                      "Hebrew leap month must have monthCode M05L, not ".concat(
                        i,
                      ),
                    );
                  if (((o = 6), !this.inLeapYear({ year: a }))) {
                    if ("reject" === n)
                      throw new RangeError(
                        "Hebrew monthCode M05L is invalid in year ".concat(
                          a,
                          " which is not a leap year",
                        ),
                      );
                    ((o = 6), (i = "M06"));
                  }
                } else {
                  ((o = nonLeapMonthCodeNumberPart(i)),
                    this.inLeapYear({ year: a }) && o >= 6 && o++);
                  var c = this.monthsInYear({ year: a });
                  if (o < 1 || o > c)
                    throw new RangeError("Invalid monthCode: ".concat(i));
                }
              else if (
                ("reject" === n
                  ? (RejectToRange(o, 1, this.monthsInYear({ year: a })),
                    RejectToRange(
                      u,
                      1,
                      this.maximumMonthLength({ year: a, month: o }),
                    ))
                  : ((o = ConstrainToRange(
                      o,
                      1,
                      this.monthsInYear({ year: a }),
                    )),
                    (u = ConstrainToRange(
                      u,
                      1,
                      this.maximumMonthLength({ year: a, month: o }),
                    ))),
                void 0 === i)
              )
                i = this.getMonthCode(a, o);
              else if (this.getMonthCode(a, o) !== i)
                throw new RangeError(
                  "monthCode "
                    .concat(i, " doesn't correspond to month ")
                    .concat(o, " in Hebrew year ")
                    .concat(a),
                );
              return _objectSpread2(
                _objectSpread2({}, e),
                {},
                { day: u, month: o, monthCode: i, year: a },
              );
            },
          },
        ]),
        HebrewHelper
      );
    })(tt),
    rt = (function (e) {
      _inherits(IslamicBaseHelper, e);
      var t = _createSuper(IslamicBaseHelper);
      function IslamicBaseHelper() {
        var e;
        return (
          _classCallCheck(this, IslamicBaseHelper),
          ((e = t.apply(this, arguments)).calendarType = "lunar"),
          (e.DAYS_PER_ISLAMIC_YEAR = 354 + 11 / 30),
          (e.DAYS_PER_ISO_YEAR = 365.2425),
          e
        );
      }
      return (
        _createClass(IslamicBaseHelper, [
          {
            key: "inLeapYear",
            value: function inLeapYear(e, t) {
              var n = { year: e.year, month: 1, monthCode: "M01", day: 1 },
                r = { year: e.year + 1, month: 1, monthCode: "M01", day: 1 };
              return 355 === this.calendarDaysUntil(n, r, t);
            },
          },
          {
            key: "monthsInYear",
            value: function monthsInYear() {
              return 12;
            },
          },
          {
            key: "minimumMonthLength",
            value: function minimumMonthLength() {
              return 29;
            },
          },
          {
            key: "maximumMonthLength",
            value: function maximumMonthLength() {
              return 30;
            },
          },
          {
            key: "maxLengthOfMonthCodeInAnyYear",
            value: function maxLengthOfMonthCodeInAnyYear() {
              return 30;
            },
          },
          {
            key: "estimateIsoDate",
            value: function estimateIsoDate(e) {
              var t = this.adjustCalendarDate(e).year;
              return {
                year:
                  Math.floor(
                    (t * this.DAYS_PER_ISLAMIC_YEAR) / this.DAYS_PER_ISO_YEAR,
                  ) + 622,
                month: 1,
                day: 1,
              };
            },
          },
        ]),
        IslamicBaseHelper
      );
    })(tt),
    at = (function (e) {
      _inherits(IslamicHelper, e);
      var t = _createSuper(IslamicHelper);
      function IslamicHelper() {
        var e;
        return (
          _classCallCheck(this, IslamicHelper),
          ((e = t.apply(this, arguments)).id = "islamic"),
          e
        );
      }
      return _createClass(IslamicHelper);
    })(rt),
    ot = (function (e) {
      _inherits(IslamicUmalquraHelper, e);
      var t = _createSuper(IslamicUmalquraHelper);
      function IslamicUmalquraHelper() {
        var e;
        return (
          _classCallCheck(this, IslamicUmalquraHelper),
          ((e = t.apply(this, arguments)).id = "islamic-umalqura"),
          e
        );
      }
      return _createClass(IslamicUmalquraHelper);
    })(rt),
    it = (function (e) {
      _inherits(IslamicTblaHelper, e);
      var t = _createSuper(IslamicTblaHelper);
      function IslamicTblaHelper() {
        var e;
        return (
          _classCallCheck(this, IslamicTblaHelper),
          ((e = t.apply(this, arguments)).id = "islamic-tbla"),
          e
        );
      }
      return _createClass(IslamicTblaHelper);
    })(rt),
    ut = (function (e) {
      _inherits(IslamicCivilHelper, e);
      var t = _createSuper(IslamicCivilHelper);
      function IslamicCivilHelper() {
        var e;
        return (
          _classCallCheck(this, IslamicCivilHelper),
          ((e = t.apply(this, arguments)).id = "islamic-civil"),
          e
        );
      }
      return _createClass(IslamicCivilHelper);
    })(rt),
    st = (function (e) {
      _inherits(IslamicRgsaHelper, e);
      var t = _createSuper(IslamicRgsaHelper);
      function IslamicRgsaHelper() {
        var e;
        return (
          _classCallCheck(this, IslamicRgsaHelper),
          ((e = t.apply(this, arguments)).id = "islamic-rgsa"),
          e
        );
      }
      return _createClass(IslamicRgsaHelper);
    })(rt),
    lt = (function (e) {
      _inherits(IslamicCcHelper, e);
      var t = _createSuper(IslamicCcHelper);
      function IslamicCcHelper() {
        var e;
        return (
          _classCallCheck(this, IslamicCcHelper),
          ((e = t.apply(this, arguments)).id = "islamicc"),
          e
        );
      }
      return _createClass(IslamicCcHelper);
    })(rt),
    ct = (function (e) {
      _inherits(PersianHelper, e);
      var t = _createSuper(PersianHelper);
      function PersianHelper() {
        var e;
        return (
          _classCallCheck(this, PersianHelper),
          ((e = t.apply(this, arguments)).id = "persian"),
          (e.calendarType = "solar"),
          e
        );
      }
      return (
        _createClass(PersianHelper, [
          {
            key: "inLeapYear",
            value: function inLeapYear(e, t) {
              return (
                30 === this.daysInMonth({ year: e.year, month: 12, day: 1 }, t)
              );
            },
          },
          {
            key: "monthsInYear",
            value: function monthsInYear() {
              return 12;
            },
          },
          {
            key: "minimumMonthLength",
            value: function minimumMonthLength(e) {
              var t = e.month;
              return 12 === t ? 29 : t <= 6 ? 31 : 30;
            },
          },
          {
            key: "maximumMonthLength",
            value: function maximumMonthLength(e) {
              var t = e.month;
              return 12 === t ? 30 : t <= 6 ? 31 : 30;
            },
          },
          {
            key: "maxLengthOfMonthCodeInAnyYear",
            value: function maxLengthOfMonthCodeInAnyYear(e) {
              return nonLeapMonthCodeNumberPart(e) <= 6 ? 31 : 30;
            },
          },
          {
            key: "estimateIsoDate",
            value: function estimateIsoDate(e) {
              return {
                year: this.adjustCalendarDate(e).year + 621,
                month: 1,
                day: 1,
              };
            },
          },
        ]),
        PersianHelper
      );
    })(tt),
    dt = (function (e) {
      _inherits(IndianHelper, e);
      var t = _createSuper(IndianHelper);
      function IndianHelper() {
        var e;
        return (
          _classCallCheck(this, IndianHelper),
          ((e = t.apply(this, arguments)).id = "indian"),
          (e.calendarType = "solar"),
          (e.months = {
            1: {
              length: 30,
              month: 3,
              day: 22,
              leap: { length: 31, month: 3, day: 21 },
            },
            2: { length: 31, month: 4, day: 21 },
            3: { length: 31, month: 5, day: 22 },
            4: { length: 31, month: 6, day: 22 },
            5: { length: 31, month: 7, day: 23 },
            6: { length: 31, month: 8, day: 23 },
            7: { length: 30, month: 9, day: 23 },
            8: { length: 30, month: 10, day: 23 },
            9: { length: 30, month: 11, day: 22 },
            10: { length: 30, month: 12, day: 22 },
            11: { length: 30, month: 1, nextYear: !0, day: 21 },
            12: { length: 30, month: 2, nextYear: !0, day: 20 },
          }),
          (e.vulnerableToBceBug =
            "10/11/-79 Saka" !==
            new Date("0000-01-01T00:00Z").toLocaleDateString(
              "en-US-u-ca-indian",
              { timeZone: "UTC" },
            )),
          e
        );
      }
      return (
        _createClass(IndianHelper, [
          {
            key: "inLeapYear",
            value: function inLeapYear(e) {
              return isGregorianLeapYear(e.year + 78);
            },
          },
          {
            key: "monthsInYear",
            value: function monthsInYear() {
              return 12;
            },
          },
          {
            key: "minimumMonthLength",
            value: function minimumMonthLength(e) {
              return this.getMonthInfo(e).length;
            },
          },
          {
            key: "maximumMonthLength",
            value: function maximumMonthLength(e) {
              return this.getMonthInfo(e).length;
            },
          },
          {
            key: "maxLengthOfMonthCodeInAnyYear",
            value: function maxLengthOfMonthCodeInAnyYear(e) {
              var t,
                n = nonLeapMonthCodeNumberPart(e),
                r = this.months[n];
              return (r = null !== (t = r.leap) && void 0 !== t ? t : r).length;
            },
          },
          {
            key: "getMonthInfo",
            value: function getMonthInfo(e) {
              var t = e.month,
                n = this.months[t];
              if (void 0 === n)
                throw new RangeError("Invalid month: ".concat(t));
              return (this.inLeapYear(e) && n.leap && (n = n.leap), n);
            },
          },
          {
            key: "estimateIsoDate",
            value: function estimateIsoDate(e) {
              var t = this.adjustCalendarDate(e),
                n = this.getMonthInfo(t);
              return BalanceISODate(
                t.year + 78 + (n.nextYear ? 1 : 0),
                n.month,
                n.day + t.day - 1,
              );
            },
          },
          {
            key: "checkIcuBugs",
            value: function checkIcuBugs(e) {
              if (this.vulnerableToBceBug && e.year < 1)
                throw new RangeError(
                  "calendar '".concat(
                    this.id,
                    "' is broken for ISO dates before 0001-01-01",
                  ) +
                    " (see https://bugs.chromium.org/p/v8/issues/detail?id=10529)",
                );
            },
          },
        ]),
        IndianHelper
      );
    })(tt);
  function isGregorianLeapYear(e) {
    return e % 4 == 0 && (e % 100 != 0 || e % 400 == 0);
  }
  for (
    var mt,
      ht,
      ft,
      pt = (function (e) {
        _inherits(GregorianBaseHelperFixedEpoch, e);
        var t = _createSuper(GregorianBaseHelperFixedEpoch);
        function GregorianBaseHelperFixedEpoch(e, n) {
          var r;
          return (
            _classCallCheck(this, GregorianBaseHelperFixedEpoch),
            ((r = t.call(this)).calendarType = "solar"),
            (r.id = e),
            (r.isoEpoch = n),
            r
          );
        }
        return (
          _createClass(GregorianBaseHelperFixedEpoch, [
            {
              key: "inLeapYear",
              value: function inLeapYear(e) {
                return isGregorianLeapYear(
                  this.estimateIsoDate({ month: 1, day: 1, year: e.year }).year,
                );
              },
            },
            {
              key: "monthsInYear",
              value: function monthsInYear() {
                return 12;
              },
            },
            {
              key: "minimumMonthLength",
              value: function minimumMonthLength(e) {
                var t = e.month;
                return 2 === t
                  ? this.inLeapYear(e)
                    ? 29
                    : 28
                  : [4, 6, 9, 11].indexOf(t) >= 0
                    ? 30
                    : 31;
              },
            },
            {
              key: "maximumMonthLength",
              value: function maximumMonthLength(e) {
                return this.minimumMonthLength(e);
              },
            },
            {
              key: "maxLengthOfMonthCodeInAnyYear",
              value: function maxLengthOfMonthCodeInAnyYear(e) {
                return [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][
                  nonLeapMonthCodeNumberPart(e) - 1
                ];
              },
            },
            {
              key: "estimateIsoDate",
              value: function estimateIsoDate(e) {
                var t = this.adjustCalendarDate(e);
                return RegulateISODate(
                  t.year + this.isoEpoch.year,
                  t.month + this.isoEpoch.month,
                  t.day + this.isoEpoch.day,
                  "constrain",
                );
              },
            },
          ]),
          GregorianBaseHelperFixedEpoch
        );
      })(tt),
      vt = (function (e) {
        _inherits(GregorianBaseHelper, e);
        var t = _createSuper(GregorianBaseHelper);
        function GregorianBaseHelper(e, n) {
          var r;
          (_classCallCheck(this, GregorianBaseHelper),
            ((r = t.call(this)).hasEra = !0),
            (r.calendarType = "solar"),
            (r.id = e));
          var a = (function adjustEras(e) {
              var t,
                n = e;
              if (0 === n.length)
                throw new RangeError("Invalid era data: eras are required");
              if (1 === n.length && n[0].reverseOf)
                throw new RangeError(
                  "Invalid era data: anchor era cannot count years backwards",
                );
              if (1 === n.length && !n[0].code)
                throw new RangeError(
                  "Invalid era data: at least one named era is required",
                );
              if (
                n.filter(function (e) {
                  return null != e.reverseOf;
                }).length > 1
              )
                throw new RangeError(
                  "Invalid era data: only one era can count years backwards",
                );
              (n.forEach(function (e) {
                if (e.isAnchor || (!e.anchorEpoch && !e.reverseOf)) {
                  if (t)
                    throw new RangeError(
                      "Invalid era data: cannot have multiple anchor eras",
                    );
                  ((t = e), (e.anchorEpoch = { year: e.hasYearZero ? 0 : 1 }));
                } else if (!e.code)
                  throw new RangeError(
                    "If era name is blank, it must be the anchor era",
                  );
              }),
                (n = n.filter(function (e) {
                  return e.code;
                })).forEach(function (e) {
                  var t = e.reverseOf;
                  if (t) {
                    var r = n.find(function (e) {
                      return e.code === t;
                    });
                    if (void 0 === r)
                      throw new RangeError(
                        "Invalid era data: unmatched reverseOf era: ".concat(t),
                      );
                    ((e.reverseOf = r),
                      (e.anchorEpoch = r.anchorEpoch),
                      (e.isoEpoch = r.isoEpoch));
                  }
                  (void 0 === e.anchorEpoch.month && (e.anchorEpoch.month = 1),
                    void 0 === e.anchorEpoch.day && (e.anchorEpoch.day = 1));
                }),
                n.sort(function (e, t) {
                  if (e.reverseOf) return 1;
                  if (t.reverseOf) return -1;
                  if (!e.isoEpoch || !t.isoEpoch)
                    throw new RangeError("Invalid era data: missing ISO epoch");
                  return t.isoEpoch.year - e.isoEpoch.year;
                }));
              var r = n[n.length - 1].reverseOf;
              if (r && r !== n[n.length - 2])
                throw new RangeError(
                  "Invalid era data: invalid reverse-sign era",
                );
              return (
                n.forEach(function (e, t) {
                  e.genericName = "era".concat(n.length - 1 - t);
                }),
                { eras: n, anchorEra: t || n[0] }
              );
            })(n),
            o = a.eras,
            i = a.anchorEra;
          return ((r.anchorEra = i), (r.eras = o), r);
        }
        return (
          _createClass(GregorianBaseHelper, [
            {
              key: "inLeapYear",
              value: function inLeapYear(e) {
                return isGregorianLeapYear(
                  this.estimateIsoDate({ month: 1, day: 1, year: e.year }).year,
                );
              },
            },
            {
              key: "monthsInYear",
              value: function monthsInYear() {
                return 12;
              },
            },
            {
              key: "minimumMonthLength",
              value: function minimumMonthLength(e) {
                var t = e.month;
                return 2 === t
                  ? this.inLeapYear(e)
                    ? 29
                    : 28
                  : [4, 6, 9, 11].indexOf(t) >= 0
                    ? 30
                    : 31;
              },
            },
            {
              key: "maximumMonthLength",
              value: function maximumMonthLength(e) {
                return this.minimumMonthLength(e);
              },
            },
            {
              key: "maxLengthOfMonthCodeInAnyYear",
              value: function maxLengthOfMonthCodeInAnyYear(e) {
                return [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][
                  nonLeapMonthCodeNumberPart(e) - 1
                ];
              },
            },
            {
              key: "completeEraYear",
              value: function completeEraYear(e) {
                var t = this,
                  n = function checkField(t, n, r) {
                    var a = e[t];
                    if (null != a && a != n && !(r || []).includes(a)) {
                      var o = null == r ? void 0 : r[0],
                        i = o
                          ? "".concat(n, " (also called ").concat(o, ")")
                          : n;
                      throw new RangeError(
                        "Input "
                          .concat(t, " ")
                          .concat(a, " doesn't match calculated value ")
                          .concat(i),
                      );
                    }
                  },
                  r = function eraFromYear(n) {
                    var r,
                      a = _objectSpread2(
                        _objectSpread2({}, e),
                        {},
                        { year: n },
                      ),
                      o = t.eras.find(function (e, o) {
                        if (o === t.eras.length - 1) {
                          if (e.reverseOf) {
                            if (n > 0)
                              throw new RangeError(
                                "Signed year "
                                  .concat(n, " is invalid for era ")
                                  .concat(e.code),
                              );
                            return ((r = e.anchorEpoch.year - n), !0);
                          }
                          return (
                            (r =
                              n - e.anchorEpoch.year + (e.hasYearZero ? 0 : 1)),
                            !0
                          );
                        }
                        return (
                          t.compareCalendarDates(a, e.anchorEpoch) >= 0 &&
                          ((r =
                            n - e.anchorEpoch.year + (e.hasYearZero ? 0 : 1)),
                          !0)
                        );
                      });
                    if (!o)
                      throw new RangeError(
                        "Year ".concat(n, " was not matched by any era"),
                      );
                    return { eraYear: r, era: o.code, eraNames: o.names };
                  },
                  a = e.year,
                  o = e.eraYear,
                  i = e.era;
                if (null != a) {
                  var u = r(a);
                  ((o = u.eraYear),
                    n("era", (i = u.era), null == u ? void 0 : u.eraNames),
                    n("eraYear", o));
                } else {
                  if (null == o)
                    throw new RangeError(
                      "Either year or eraYear and era are required",
                    );
                  if (void 0 === i)
                    throw new RangeError(
                      "era and eraYear must be provided together",
                    );
                  var s = this.eras.find(function (e) {
                    var t = e.code,
                      n = e.names;
                    return t === i || (void 0 === n ? [] : n).includes(i);
                  });
                  if (!s)
                    throw new RangeError(
                      "Era "
                        .concat(i, " (ISO year ")
                        .concat(o, ") was not matched by any era"),
                    );
                  n(
                    "year",
                    (a = s.reverseOf
                      ? s.anchorEpoch.year - o
                      : o + s.anchorEpoch.year - (s.hasYearZero ? 0 : 1)),
                  );
                  var l = r(a);
                  ((o = l.eraYear), (i = l.era));
                }
                return _objectSpread2(
                  _objectSpread2({}, e),
                  {},
                  { year: a, eraYear: o, era: i },
                );
              },
            },
            {
              key: "adjustCalendarDate",
              value: function adjustCalendarDate(e, t) {
                var n =
                    arguments.length > 2 && void 0 !== arguments[2]
                      ? arguments[2]
                      : "constrain",
                  r = e,
                  a = r,
                  o = a.month,
                  i = a.monthCode;
                return (
                  void 0 === o &&
                    (r = _objectSpread2(
                      _objectSpread2({}, r),
                      {},
                      { month: nonLeapMonthCodeNumberPart(i) },
                    )),
                  this.validateCalendarDate(r),
                  (r = this.completeEraYear(r)),
                  _get(
                    _getPrototypeOf(GregorianBaseHelper.prototype),
                    "adjustCalendarDate",
                    this,
                  ).call(this, r, t, n)
                );
              },
            },
            {
              key: "estimateIsoDate",
              value: function estimateIsoDate(e) {
                var t = this.adjustCalendarDate(e),
                  n = t.year,
                  r = t.month,
                  a = t.day,
                  o = this.anchorEra;
                return RegulateISODate(
                  n + o.isoEpoch.year - (o.hasYearZero ? 0 : 1),
                  r,
                  a,
                  "constrain",
                );
              },
            },
          ]),
          GregorianBaseHelper
        );
      })(tt),
      Dt = (function (e) {
        _inherits(SameMonthDayAsGregorianBaseHelper, e);
        var t = _createSuper(SameMonthDayAsGregorianBaseHelper);
        function SameMonthDayAsGregorianBaseHelper(e, n) {
          return (
            _classCallCheck(this, SameMonthDayAsGregorianBaseHelper),
            t.call(this, e, n)
          );
        }
        return (
          _createClass(SameMonthDayAsGregorianBaseHelper, [
            {
              key: "isoToCalendarDate",
              value: function isoToCalendarDate(e) {
                var t = e.year,
                  n = e.month,
                  r = e.day,
                  a = buildMonthCode(n),
                  o = t - this.anchorEra.isoEpoch.year + 1;
                return this.completeEraYear({
                  year: o,
                  month: n,
                  monthCode: a,
                  day: r,
                });
              },
            },
          ]),
          SameMonthDayAsGregorianBaseHelper
        );
      })(vt),
      gt = function inLeapYear(e) {
        return (e.year + 1) % 4 == 0;
      },
      yt = function monthsInYear() {
        return 13;
      },
      Tt = function minimumMonthLength(e) {
        return 13 === e.month ? (this.inLeapYear(e) ? 6 : 5) : 30;
      },
      St = function maximumMonthLength(e) {
        return this.minimumMonthLength(e);
      },
      It = function maxLengthOfMonthCodeInAnyYear(e) {
        return "M13" === e ? 6 : 30;
      },
      Ct = (function (e) {
        _inherits(OrthodoxBaseHelperFixedEpoch, e);
        var t = _createSuper(OrthodoxBaseHelperFixedEpoch);
        function OrthodoxBaseHelperFixedEpoch(e, n) {
          var r;
          return (
            _classCallCheck(this, OrthodoxBaseHelperFixedEpoch),
            ((r = t.call(this, e, n)).inLeapYear = gt),
            (r.monthsInYear = yt),
            (r.minimumMonthLength = Tt),
            (r.maximumMonthLength = St),
            (r.maxLengthOfMonthCodeInAnyYear = It),
            r
          );
        }
        return _createClass(OrthodoxBaseHelperFixedEpoch);
      })(pt),
      _t = (function (e) {
        _inherits(OrthodoxBaseHelper, e);
        var t = _createSuper(OrthodoxBaseHelper);
        function OrthodoxBaseHelper(e, n) {
          var r;
          return (
            _classCallCheck(this, OrthodoxBaseHelper),
            ((r = t.call(this, e, n)).inLeapYear = gt),
            (r.monthsInYear = yt),
            (r.minimumMonthLength = Tt),
            (r.maximumMonthLength = St),
            (r.maxLengthOfMonthCodeInAnyYear = It),
            r
          );
        }
        return _createClass(OrthodoxBaseHelper);
      })(vt),
      Ot = (function (e) {
        _inherits(EthioaaHelper, e);
        var t = _createSuper(EthioaaHelper);
        function EthioaaHelper() {
          return (
            _classCallCheck(this, EthioaaHelper),
            t.call(this, "ethioaa", { year: -5492, month: 7, day: 17 })
          );
        }
        return _createClass(EthioaaHelper);
      })(Ct),
      bt = (function (e) {
        _inherits(CopticHelper, e);
        var t = _createSuper(CopticHelper);
        function CopticHelper() {
          return (
            _classCallCheck(this, CopticHelper),
            t.call(this, "coptic", [
              { code: "coptic", isoEpoch: { year: 284, month: 8, day: 29 } },
              { code: "coptic-inverse", reverseOf: "coptic" },
            ])
          );
        }
        return _createClass(CopticHelper);
      })(_t),
      wt = (function (e) {
        _inherits(EthiopicHelper, e);
        var t = _createSuper(EthiopicHelper);
        function EthiopicHelper() {
          return (
            _classCallCheck(this, EthiopicHelper),
            t.call(this, "ethiopic", [
              {
                code: "ethioaa",
                names: ["ethiopic-amete-alem", "mundi"],
                isoEpoch: { year: -5492, month: 7, day: 17 },
              },
              {
                code: "ethiopic",
                names: ["incar"],
                isoEpoch: { year: 8, month: 8, day: 27 },
                anchorEpoch: { year: 5501 },
              },
            ])
          );
        }
        return _createClass(EthiopicHelper);
      })(_t),
      Ft = (function (e) {
        _inherits(RocHelper, e);
        var t = _createSuper(RocHelper);
        function RocHelper() {
          return (
            _classCallCheck(this, RocHelper),
            t.call(this, "roc", [
              {
                code: "roc",
                names: ["minguo"],
                isoEpoch: { year: 1912, month: 1, day: 1 },
              },
              { code: "roc-inverse", names: ["before-roc"], reverseOf: "roc" },
            ])
          );
        }
        return _createClass(RocHelper);
      })(Dt),
      kt = (function (e) {
        _inherits(BuddhistHelper, e);
        var t = _createSuper(BuddhistHelper);
        function BuddhistHelper() {
          return (
            _classCallCheck(this, BuddhistHelper),
            t.call(this, "buddhist", { year: -543, month: 1, day: 1 })
          );
        }
        return _createClass(BuddhistHelper);
      })(pt),
      Et = (function (e) {
        _inherits(GregoryHelper, e);
        var t = _createSuper(GregoryHelper);
        function GregoryHelper() {
          return (
            _classCallCheck(this, GregoryHelper),
            t.call(this, "gregory", [
              {
                code: "gregory",
                names: ["ad", "ce"],
                isoEpoch: { year: 1, month: 1, day: 1 },
              },
              {
                code: "gregory-inverse",
                names: ["be", "bce"],
                reverseOf: "gregory",
              },
            ])
          );
        }
        return (
          _createClass(GregoryHelper, [
            {
              key: "reviseIntlEra",
              value: function reviseIntlEra(e) {
                var t = e.era;
                return (
                  "b" === t && (t = "gregory-inverse"),
                  "a" === t && (t = "gregory"),
                  { era: t, eraYear: e.eraYear }
                );
              },
            },
            {
              key: "getFirstDayOfWeek",
              value: function getFirstDayOfWeek() {
                return 1;
              },
            },
            {
              key: "getMinimalDaysInFirstWeek",
              value: function getMinimalDaysInFirstWeek() {
                return 1;
              },
            },
          ]),
          GregoryHelper
        );
      })(Dt),
      Bt = (function (e) {
        _inherits(JapaneseHelper, e);
        var t = _createSuper(JapaneseHelper);
        function JapaneseHelper() {
          var e;
          return (
            _classCallCheck(this, JapaneseHelper),
            ((e = t.call(this, "japanese", [
              {
                code: "reiwa",
                isoEpoch: { year: 2019, month: 5, day: 1 },
                anchorEpoch: { year: 2019, month: 5, day: 1 },
              },
              {
                code: "heisei",
                isoEpoch: { year: 1989, month: 1, day: 8 },
                anchorEpoch: { year: 1989, month: 1, day: 8 },
              },
              {
                code: "showa",
                isoEpoch: { year: 1926, month: 12, day: 25 },
                anchorEpoch: { year: 1926, month: 12, day: 25 },
              },
              {
                code: "taisho",
                isoEpoch: { year: 1912, month: 7, day: 30 },
                anchorEpoch: { year: 1912, month: 7, day: 30 },
              },
              {
                code: "meiji",
                isoEpoch: { year: 1868, month: 9, day: 8 },
                anchorEpoch: { year: 1868, month: 9, day: 8 },
              },
              {
                code: "japanese",
                names: ["japanese", "gregory", "ad", "ce"],
                isoEpoch: { year: 1, month: 1, day: 1 },
              },
              {
                code: "japanese-inverse",
                names: ["japanese-inverse", "gregory-inverse", "bc", "bce"],
                reverseOf: "japanese",
              },
            ])).erasBeginMidYear = !0),
            e
          );
        }
        return (
          _createClass(JapaneseHelper, [
            {
              key: "reviseIntlEra",
              value: function reviseIntlEra(e, t) {
                var n = e.era,
                  r = e.eraYear,
                  a = t.year;
                return this.eras.find(function (e) {
                  return e.code === n;
                })
                  ? { era: n, eraYear: r }
                  : a < 1
                    ? { era: "japanese-inverse", eraYear: 1 - a }
                    : { era: "japanese", eraYear: a };
              },
            },
          ]),
          JapaneseHelper
        );
      })(Dt),
      Rt = (function (e) {
        _inherits(ChineseBaseHelper, e);
        var t = _createSuper(ChineseBaseHelper);
        function ChineseBaseHelper() {
          var e;
          return (
            _classCallCheck(this, ChineseBaseHelper),
            ((e = t.apply(this, arguments)).calendarType = "lunisolar"),
            e
          );
        }
        return (
          _createClass(ChineseBaseHelper, [
            {
              key: "inLeapYear",
              value: function inLeapYear(e, t) {
                var n = this.getMonthList(e.year, t);
                return 13 === Object.entries(n).length;
              },
            },
            {
              key: "monthsInYear",
              value: function monthsInYear(e, t) {
                return this.inLeapYear(e, t) ? 13 : 12;
              },
            },
            {
              key: "minimumMonthLength",
              value: function minimumMonthLength() {
                return 29;
              },
            },
            {
              key: "maximumMonthLength",
              value: function maximumMonthLength() {
                return 30;
              },
            },
            {
              key: "maxLengthOfMonthCodeInAnyYear",
              value: function maxLengthOfMonthCodeInAnyYear(e) {
                return ["M01L", "M09L", "M10L", "M11L", "M12L"].includes(e)
                  ? 29
                  : 30;
              },
            },
            {
              key: "monthDaySearchStartYear",
              value: function monthDaySearchStartYear(e, t) {
                var n,
                  r =
                    null !==
                      (n = {
                        M01L: [1651, 1651],
                        M02L: [1947, 1765],
                        M03L: [1966, 1955],
                        M04L: [1963, 1944],
                        M05L: [1971, 1952],
                        M06L: [1960, 1941],
                        M07L: [1968, 1938],
                        M08L: [1957, 1718],
                        M09L: [1832, 1832],
                        M10L: [1870, 1870],
                        M11L: [1814, 1814],
                        M12L: [1890, 1890],
                      }[e]) && void 0 !== n
                      ? n
                      : [1972, 1972];
                return t < 30 ? r[0] : r[1];
              },
            },
            {
              key: "getMonthList",
              value: function getMonthList(e, t) {
                var n = this;
                if (void 0 === e) throw new TypeError("Missing year");
                var r = JSON.stringify({
                    func: "getMonthList",
                    calendarYear: e,
                    id: this.id,
                  }),
                  a = t.get(r);
                if (a) return a;
                var o = this.getFormatter(),
                  i = function getCalendarDate(e, t) {
                    var r = toUtcIsoDateString({
                        isoYear: e,
                        isoMonth: 2,
                        isoDay: 1,
                      }),
                      a = new Date(r);
                    a.setUTCDate(t + 1);
                    var i = o.formatToParts(a),
                      u = i.find(function (e) {
                        return "month" === e.type;
                      }).value,
                      s = +i.find(function (e) {
                        return "day" === e.type;
                      }).value,
                      l = i.find(function (e) {
                        return "relatedYear" === e.type;
                      });
                    if (void 0 === l)
                      throw new RangeError(
                        "Intl.DateTimeFormat.formatToParts lacks relatedYear in ".concat(
                          n.id,
                          " calendar. Try Node 14+ or modern browsers.",
                        ),
                      );
                    return {
                      calendarMonthString: u,
                      calendarDay: s,
                      calendarYearToVerify: +l.value,
                    };
                  },
                  u = 17,
                  s = i(e, u),
                  l = s.calendarMonthString,
                  c = s.calendarDay,
                  d = s.calendarYearToVerify;
                if ("1" !== l) {
                  var m = i(e, (u += 29));
                  ((l = m.calendarMonthString), (c = m.calendarDay));
                }
                u -= c - 5;
                var h,
                  f,
                  p = {},
                  v = 1,
                  D = !1;
                do {
                  var g = i(e, u);
                  ((l = g.calendarMonthString),
                    (c = g.calendarDay),
                    (d = g.calendarYearToVerify),
                    h && (p[f].daysInMonth = h + 30 - c),
                    d !== e
                      ? (D = !0)
                      : ((p[l] = { monthIndex: v++ }), (u += 30)),
                    (h = c),
                    (f = l));
                } while (!D);
                return ((p[f].daysInMonth = h + 30 - c), t.set(r, p), p);
              },
            },
            {
              key: "estimateIsoDate",
              value: function estimateIsoDate(e) {
                var t = e.year,
                  n = e.month;
                return { year: t, month: n >= 12 ? 12 : n + 1, day: 1 };
              },
            },
            {
              key: "adjustCalendarDate",
              value: function adjustCalendarDate(e, t) {
                var n =
                    arguments.length > 2 && void 0 !== arguments[2]
                      ? arguments[2]
                      : "constrain",
                  r =
                    arguments.length > 3 &&
                    void 0 !== arguments[3] &&
                    arguments[3],
                  a = e.year,
                  o = e.month,
                  i = e.monthExtra,
                  u = e.day,
                  s = e.monthCode;
                if (void 0 === a) throw new TypeError("Missing property: year");
                if (r) {
                  if (i && "bis" !== i)
                    throw new RangeError(
                      "Unexpected leap month suffix: ".concat(i),
                    );
                  var l = buildMonthCode(o, void 0 !== i),
                    c = "".concat(o).concat(i || ""),
                    d = this.getMonthList(a, t)[c];
                  if (void 0 === d)
                    throw new RangeError(
                      "Unmatched month "
                        .concat(c, " in Chinese year ")
                        .concat(a),
                    );
                  return {
                    year: a,
                    month: (o = d.monthIndex),
                    day: u,
                    monthCode: l,
                  };
                }
                if ((this.validateCalendarDate(e), void 0 === o)) {
                  var m = this.getMonthList(a, t),
                    h = s.replace(/^M|L$/g, function (e) {
                      return "L" === e ? "bis" : "";
                    });
                  "0" === h[0] && (h = h.slice(1));
                  var f = m[h];
                  if (
                    void 0 === (o = f && f.monthIndex) &&
                    s.endsWith("L") &&
                    "M13L" != s &&
                    "constrain" === n
                  ) {
                    var p = +s.replace(/^M0?|L$/g, "");
                    (f = m[p]) && ((o = f.monthIndex), (s = buildMonthCode(p)));
                  }
                  if (void 0 === o)
                    throw new RangeError(
                      "Unmatched month "
                        .concat(s, " in Chinese year ")
                        .concat(a),
                    );
                } else if (void 0 === s) {
                  var v = this.getMonthList(a, t),
                    D = Object.entries(v),
                    g = D.length;
                  "reject" === n
                    ? (RejectToRange(o, 1, g),
                      RejectToRange(u, 1, this.maximumMonthLength()))
                    : ((o = ConstrainToRange(o, 1, g)),
                      (u = ConstrainToRange(u, 1, this.maximumMonthLength())));
                  var y = D.find(function (e) {
                    return e[1].monthIndex === o;
                  });
                  if (void 0 === y)
                    throw new RangeError(
                      "Invalid month ".concat(o, " in Chinese year ").concat(a),
                    );
                  s = buildMonthCode(
                    +y[0].replace("bis", ""),
                    -1 !== y[0].indexOf("bis"),
                  );
                } else {
                  var T = this.getMonthList(a, t),
                    S = s.replace(/^M|L$/g, function (e) {
                      return "L" === e ? "bis" : "";
                    });
                  "0" === S[0] && (S = S.slice(1));
                  var I = T[S];
                  if (!I)
                    throw new RangeError(
                      "Unmatched monthCode "
                        .concat(s, " in Chinese year ")
                        .concat(a),
                    );
                  if (o !== I.monthIndex)
                    throw new RangeError(
                      "monthCode "
                        .concat(s, " doesn't correspond to month ")
                        .concat(o, " in Chinese year ")
                        .concat(a),
                    );
                }
                return _objectSpread2(
                  _objectSpread2({}, e),
                  {},
                  { year: a, month: o, monthCode: s, day: u },
                );
              },
            },
          ]),
          ChineseBaseHelper
        );
      })(tt),
      Gt = (function (e) {
        _inherits(ChineseHelper, e);
        var t = _createSuper(ChineseHelper);
        function ChineseHelper() {
          var e;
          return (
            _classCallCheck(this, ChineseHelper),
            ((e = t.apply(this, arguments)).id = "chinese"),
            e
          );
        }
        return _createClass(ChineseHelper);
      })(Rt),
      Mt = (function (e) {
        _inherits(DangiHelper, e);
        var t = _createSuper(DangiHelper);
        function DangiHelper() {
          var e;
          return (
            _classCallCheck(this, DangiHelper),
            ((e = t.apply(this, arguments)).id = "dangi"),
            e
          );
        }
        return _createClass(DangiHelper);
      })(Rt),
      At = (function () {
        function NonIsoCalendar(e) {
          (_classCallCheck(this, NonIsoCalendar), (this.helper = e));
        }
        return (
          _createClass(NonIsoCalendar, [
            {
              key: "extraFields",
              value: function extraFields(e) {
                return this.helper.hasEra && e.includes("year")
                  ? ["era", "eraYear"]
                  : [];
              },
            },
            {
              key: "resolveFields",
              value: function resolveFields(e) {
                if ("lunisolar" !== this.helper.calendarType) {
                  var t,
                    n = new et();
                  resolveNonLunisolarMonth(
                    e,
                    void 0,
                    this.helper.monthsInYear(
                      {
                        year: null !== (t = e.year) && void 0 !== t ? t : 1972,
                      },
                      n,
                    ),
                  );
                }
              },
            },
            {
              key: "dateToISO",
              value: function dateToISO(e, t) {
                var n = new et(),
                  r = this.helper.calendarToIsoDate(e, t, n);
                return (n.setObject(r), r);
              },
            },
            {
              key: "monthDayToISOReferenceDate",
              value: function monthDayToISOReferenceDate(e, t) {
                var n = new et(),
                  r = this.helper.monthDayFromFields(e, t, n);
                return (n.setObject(r), r);
              },
            },
            {
              key: "fieldKeysToIgnore",
              value: function fieldKeysToIgnore(e) {
                for (var t = new Set(), n = 0; n < e.length; n++) {
                  var r = e[n];
                  switch ((t.add(r), r)) {
                    case "era":
                      (t.add("eraYear"), t.add("year"));
                      break;
                    case "eraYear":
                      (t.add("era"), t.add("year"));
                      break;
                    case "year":
                      (t.add("era"), t.add("eraYear"));
                      break;
                    case "month":
                      (t.add("monthCode"),
                        this.helper.erasBeginMidYear &&
                          (t.add("era"), t.add("eraYear")));
                      break;
                    case "monthCode":
                      (t.add("month"),
                        this.helper.erasBeginMidYear &&
                          (t.add("era"), t.add("eraYear")));
                      break;
                    case "day":
                      this.helper.erasBeginMidYear &&
                        (t.add("era"), t.add("eraYear"));
                  }
                }
                return arrayFromSet(t);
              },
            },
            {
              key: "dateAdd",
              value: function dateAdd(e, t, n) {
                var r = t.years,
                  a = t.months,
                  o = t.weeks,
                  i = t.days,
                  u = et.getCacheForObject(e),
                  s = this.helper.isoToCalendarDate(e, u),
                  l = this.helper.addCalendar(
                    s,
                    { years: r, months: a, weeks: o, days: i },
                    n,
                    u,
                  ),
                  c = this.helper.calendarToIsoDate(l, "constrain", u);
                return (et.getCacheForObject(c) || new et(u).setObject(c), c);
              },
            },
            {
              key: "dateUntil",
              value: function dateUntil(e, t, n) {
                var r = et.getCacheForObject(e),
                  a = et.getCacheForObject(t),
                  o = this.helper.isoToCalendarDate(e, r),
                  i = this.helper.isoToCalendarDate(t, a);
                return this.helper.untilCalendar(o, i, n, r);
              },
            },
            {
              key: "isoToDate",
              value: function isoToDate(e, t) {
                var n = et.getCacheForObject(e),
                  r = this.helper.isoToCalendarDate(e, n);
                if (
                  (t.dayOfWeek &&
                    (r.dayOfWeek = Qe.iso8601.isoToDate(e, {
                      dayOfWeek: !0,
                    }).dayOfWeek),
                  t.dayOfYear)
                ) {
                  var a = this.helper.startOfCalendarYear(r),
                    o = this.helper.calendarDaysUntil(a, r, n);
                  r.dayOfYear = o + 1;
                }
                if (
                  (t.weekOfYear &&
                    (r.weekOfYear = calendarDateWeekOfYear(this.helper.id, e)),
                  (r.daysInWeek = 7),
                  t.daysInMonth &&
                    (r.daysInMonth = this.helper.daysInMonth(r, n)),
                  t.daysInYear)
                ) {
                  var i = this.helper.startOfCalendarYear(r),
                    u = this.helper.addCalendar(
                      i,
                      { years: 1 },
                      "constrain",
                      n,
                    );
                  r.daysInYear = this.helper.calendarDaysUntil(i, u, n);
                }
                return (
                  t.monthsInYear &&
                    (r.monthsInYear = this.helper.monthsInYear(r, n)),
                  t.inLeapYear && (r.inLeapYear = this.helper.inLeapYear(r, n)),
                  r
                );
              },
            },
            {
              key: "getFirstDayOfWeek",
              value: function getFirstDayOfWeek() {
                return this.helper.getFirstDayOfWeek();
              },
            },
            {
              key: "getMinimalDaysInFirstWeek",
              value: function getMinimalDaysInFirstWeek() {
                return this.helper.getMinimalDaysInFirstWeek();
              },
            },
          ]),
          NonIsoCalendar
        );
      })(),
      Pt = 0,
      jt = [
        nt,
        ct,
        wt,
        Ot,
        bt,
        Gt,
        Mt,
        Ft,
        dt,
        kt,
        Et,
        Bt,
        at,
        ot,
        it,
        ut,
        st,
        lt,
      ];
    Pt < jt.length;
    Pt++
  ) {
    var Nt = new (0, jt[Pt])();
    Qe[Nt.id] = new At(Nt);
  }
  DefineIntrinsic("calendarImpl", function calendarImpl(e) {
    return Qe[e];
  });
  var Yt = Intl.DateTimeFormat;
  function getSlotLazy(e, t) {
    var n = GetSlot(e, t);
    return (
      "function" == typeof n &&
        (function ResetSlot(e, t, n) {
          var r = V(e);
          if (void 0 === r)
            throw new TypeError("Missing slots for the given container");
          if (void 0 === r[t])
            throw new TypeError(
              "tried to reset ".concat(t, " which was not set"),
            );
          r[t] = n;
        })(e, t, (n = new Yt(GetSlot(e, W), n(GetSlot(e, z))))),
      n
    );
  }
  function IsPatchedDateTimeFormat(e) {
    return HasSlot(e, Z);
  }
  var Jt = (function () {
    function DateTimeFormatImpl() {
      var e =
          arguments.length > 0 && void 0 !== arguments[0]
            ? arguments[0]
            : void 0,
        t =
          arguments.length > 1 && void 0 !== arguments[1]
            ? arguments[1]
            : void 0;
      (_classCallCheck(this, DateTimeFormatImpl),
        (function createDateTimeFormat(e, t, n) {
          var r,
            a = void 0 !== n;
          if (a) {
            var o = [
              "localeMatcher",
              "calendar",
              "numberingSystem",
              "hour12",
              "hourCycle",
              "timeZone",
              "weekday",
              "era",
              "year",
              "month",
              "day",
              "dayPeriod",
              "hour",
              "minute",
              "second",
              "fractionalSecondDigits",
              "timeZoneName",
              "formatMatcher",
              "dateStyle",
              "timeStyle",
            ];
            r = (function ToObject(e) {
              if (null == e)
                throw new TypeError("Expected object not ".concat(e));
              return Object(e);
            })(n);
            for (var i = Object.create(null), u = 0; u < o.length; u++) {
              var s = o[u];
              Object.prototype.hasOwnProperty.call(r, s) && (i[s] = r[s]);
            }
            r = i;
          } else r = Object.create(null);
          var l = new Yt(t, r),
            c = l.resolvedOptions();
          if ((Q(e), a)) {
            var d = Object.assign(Object.create(null), c);
            for (var m in d)
              Object.prototype.hasOwnProperty.call(r, m) || delete d[m];
            ((d.hour12 = r.hour12),
              (d.hourCycle = r.hourCycle),
              SetSlot(e, z, d));
          } else SetSlot(e, z, r);
          (SetSlot(e, W, c.locale),
            SetSlot(e, Z, l),
            SetSlot(e, U, c.timeZone),
            SetSlot(e, H, c.calendar),
            SetSlot(e, P, dateAmend),
            SetSlot(e, j, yearMonthAmend),
            SetSlot(e, N, monthDayAmend),
            SetSlot(e, Y, timeAmend),
            SetSlot(e, J, datetimeAmend),
            SetSlot(e, L, instantAmend));
          var h = a ? r.timeZone : void 0;
          if (void 0 === h) SetSlot(e, x, c.timeZone);
          else {
            var f = ToString(h);
            if (f.startsWith("−"))
              throw new RangeError(
                "Unicode minus (U+2212) is not supported in time zone offsets",
              );
            SetSlot(e, x, ToTemporalTimeZoneIdentifier(f));
          }
        })(this, e, t));
    }
    return (
      _createClass(DateTimeFormatImpl, [
        {
          key: "format",
          get: function get() {
            CheckReceiver(this, IsPatchedDateTimeFormat);
            var e = format.bind(this);
            return (
              Object.defineProperties(e, {
                length: {
                  value: 1,
                  enumerable: !1,
                  writable: !1,
                  configurable: !0,
                },
                name: {
                  value: "",
                  enumerable: !1,
                  writable: !1,
                  configurable: !0,
                },
              }),
              e
            );
          },
        },
        {
          key: "formatRange",
          value: function formatRange(e, t) {
            return (
              CheckReceiver(this, IsPatchedDateTimeFormat),
              _formatRange.call(this, e, t)
            );
          },
        },
        {
          key: "formatToParts",
          value: function formatToParts(e) {
            CheckReceiver(this, IsPatchedDateTimeFormat);
            for (
              var t = arguments.length, n = new Array(t > 1 ? t - 1 : 0), r = 1;
              r < t;
              r++
            )
              n[r - 1] = arguments[r];
            return _formatToParts.call.apply(
              _formatToParts,
              [this, e].concat(n),
            );
          },
        },
        {
          key: "formatRangeToParts",
          value: function formatRangeToParts(e, t) {
            return (
              CheckReceiver(this, IsPatchedDateTimeFormat),
              _formatRangeToParts.call(this, e, t)
            );
          },
        },
        {
          key: "resolvedOptions",
          value: function resolvedOptions() {
            return (
              CheckReceiver(this, IsPatchedDateTimeFormat),
              _resolvedOptions.call(this)
            );
          },
        },
      ]),
      DateTimeFormatImpl
    );
  })();
  ("formatToParts" in Yt.prototype || delete Jt.prototype.formatToParts,
    "formatRangeToParts" in Yt.prototype ||
      delete Jt.prototype.formatRangeToParts);
  var Lt = function DateTimeFormat() {
    return new Jt(
      arguments.length > 0 && void 0 !== arguments[0] ? arguments[0] : void 0,
      arguments.length > 1 && void 0 !== arguments[1] ? arguments[1] : void 0,
    );
  };
  function _resolvedOptions() {
    var e = GetSlot(this, Z).resolvedOptions();
    return ((e.timeZone = GetSlot(this, x)), e);
  }
  function format(e) {
    var t,
      n,
      r,
      a = extractOverrides(e, this);
    if (a.formatter)
      ((n = a.formatter), (r = [epochNsToMs(a.epochNs, "floor")]));
    else {
      n = GetSlot(this, Z);
      for (
        var o = arguments.length, i = new Array(o > 1 ? o - 1 : 0), u = 1;
        u < o;
        u++
      )
        i[u - 1] = arguments[u];
      r = [e].concat(i);
    }
    return (t = n).format.apply(t, _toConsumableArray(r));
  }
  function _formatToParts(e) {
    var t,
      n,
      r,
      a = extractOverrides(e, this);
    if (a.formatter)
      ((n = a.formatter), (r = [epochNsToMs(a.epochNs, "floor")]));
    else {
      n = GetSlot(this, Z);
      for (
        var o = arguments.length, i = new Array(o > 1 ? o - 1 : 0), u = 1;
        u < o;
        u++
      )
        i[u - 1] = arguments[u];
      r = [e].concat(i);
    }
    return (t = n).formatToParts.apply(t, _toConsumableArray(r));
  }
  function _formatRange(e, t) {
    var n;
    if (void 0 === e || void 0 === t)
      throw new TypeError(
        "Intl.DateTimeFormat.formatRange requires two values",
      );
    var r,
      a = toDateTimeFormattable(e),
      o = toDateTimeFormattable(t),
      i = [a, o];
    if (isTemporalObject(a) !== isTemporalObject(o))
      throw new TypeError(
        "Intl.DateTimeFormat.formatRange accepts two values of the same type",
      );
    if (isTemporalObject(a)) {
      if (!sameTemporalType(a, o))
        throw new TypeError(
          "Intl.DateTimeFormat.formatRange accepts two values of the same type",
        );
      var u = extractOverrides(a, this),
        s = u.epochNs,
        l = u.formatter,
        c = extractOverrides(o, this),
        d = c.epochNs;
      (c.formatter,
        l &&
          ((r = l), (i = [epochNsToMs(s, "floor"), epochNsToMs(d, "floor")])));
    }
    return (
      r || (r = GetSlot(this, Z)),
      (n = r).formatRange.apply(n, _toConsumableArray(i))
    );
  }
  function _formatRangeToParts(e, t) {
    var n;
    if (void 0 === e || void 0 === t)
      throw new TypeError(
        "Intl.DateTimeFormat.formatRange requires two values",
      );
    var r,
      a = toDateTimeFormattable(e),
      o = toDateTimeFormattable(t),
      i = [a, o];
    if (isTemporalObject(a) !== isTemporalObject(o))
      throw new TypeError(
        "Intl.DateTimeFormat.formatRangeToParts accepts two values of the same type",
      );
    if (isTemporalObject(a)) {
      if (!sameTemporalType(a, o))
        throw new TypeError(
          "Intl.DateTimeFormat.formatRangeToParts accepts two values of the same type",
        );
      var u = extractOverrides(a, this),
        s = u.epochNs,
        l = u.formatter,
        c = extractOverrides(o, this),
        d = c.epochNs;
      (c.formatter,
        l &&
          ((r = l), (i = [epochNsToMs(s, "floor"), epochNsToMs(d, "floor")])));
    }
    return (
      r || (r = GetSlot(this, Z)),
      (n = r).formatRangeToParts.apply(n, _toConsumableArray(i))
    );
  }
  function amend() {
    for (
      var e =
          arguments.length > 0 && void 0 !== arguments[0] ? arguments[0] : {},
        t = arguments.length > 1 && void 0 !== arguments[1] ? arguments[1] : {},
        n = Object.assign({}, e),
        r = [
          "year",
          "month",
          "day",
          "hour",
          "minute",
          "second",
          "weekday",
          "dayPeriod",
          "timeZoneName",
          "dateStyle",
          "timeStyle",
        ],
        a = 0;
      a < r.length;
      a++
    ) {
      var o = r[a];
      ((n[o] = o in t ? t[o] : n[o]),
        (!1 !== n[o] && void 0 !== n[o]) || delete n[o]);
    }
    return n;
  }
  function timeAmend(e) {
    var t = amend(e, {
      year: !1,
      month: !1,
      day: !1,
      weekday: !1,
      timeZoneName: !1,
      dateStyle: !1,
    });
    if (
      (("long" !== t.timeStyle && "full" !== t.timeStyle) ||
        (delete t.timeStyle,
        Object.assign(t, {
          hour: "numeric",
          minute: "2-digit",
          second: "2-digit",
        })),
      !hasTimeOptions(t))
    ) {
      if (hasAnyDateTimeOptions(e))
        throw new TypeError(
          "cannot format Temporal.PlainTime with options [".concat(
            Object.keys(e),
            "]",
          ),
        );
      Object.assign(t, {
        hour: "numeric",
        minute: "numeric",
        second: "numeric",
      });
    }
    return t;
  }
  function yearMonthAmend(e) {
    var t = amend(e, {
      day: !1,
      hour: !1,
      minute: !1,
      second: !1,
      weekday: !1,
      dayPeriod: !1,
      timeZoneName: !1,
      timeStyle: !1,
    });
    if ("dateStyle" in t && t.dateStyle) {
      var n = t.dateStyle;
      (delete t.dateStyle,
        Object.assign(
          t,
          {
            short: { year: "2-digit", month: "numeric" },
            medium: { year: "numeric", month: "short" },
            long: { year: "numeric", month: "long" },
            full: { year: "numeric", month: "long" },
          }[n],
        ));
    }
    if (!("year" in t || "month" in t || "era" in t)) {
      if (hasAnyDateTimeOptions(e))
        throw new TypeError(
          "cannot format PlainYearMonth with options [".concat(
            Object.keys(e),
            "]",
          ),
        );
      Object.assign(t, { year: "numeric", month: "numeric" });
    }
    return t;
  }
  function monthDayAmend(e) {
    var t = amend(e, {
      year: !1,
      hour: !1,
      minute: !1,
      second: !1,
      weekday: !1,
      dayPeriod: !1,
      timeZoneName: !1,
      timeStyle: !1,
    });
    if ("dateStyle" in t && t.dateStyle) {
      var n = t.dateStyle;
      (delete t.dateStyle,
        Object.assign(
          t,
          {
            short: { month: "numeric", day: "numeric" },
            medium: { month: "short", day: "numeric" },
            long: { month: "long", day: "numeric" },
            full: { month: "long", day: "numeric" },
          }[n],
        ));
    }
    if (!("month" in t) && !("day" in t)) {
      if (hasAnyDateTimeOptions(e))
        throw new TypeError(
          "cannot format PlainMonthDay with options [".concat(
            Object.keys(e),
            "]",
          ),
        );
      Object.assign(t, { month: "numeric", day: "numeric" });
    }
    return t;
  }
  function dateAmend(e) {
    var t = amend(e, {
      hour: !1,
      minute: !1,
      second: !1,
      dayPeriod: !1,
      timeZoneName: !1,
      timeStyle: !1,
    });
    if (!hasDateOptions(t)) {
      if (hasAnyDateTimeOptions(e))
        throw new TypeError(
          "cannot format PlainDate with options [".concat(Object.keys(e), "]"),
        );
      Object.assign(t, { year: "numeric", month: "numeric", day: "numeric" });
    }
    return t;
  }
  function datetimeAmend(e) {
    var t = amend(e, { timeZoneName: !1 });
    if (
      (("long" !== t.timeStyle && "full" !== t.timeStyle) ||
        (delete t.timeStyle,
        Object.assign(t, {
          hour: "numeric",
          minute: "2-digit",
          second: "2-digit",
        }),
        !t.dateStyle) ||
        (Object.assign(
          t,
          {
            short: { year: "numeric", month: "numeric", day: "numeric" },
            medium: { year: "numeric", month: "short", day: "numeric" },
            long: { year: "numeric", month: "long", day: "numeric" },
            full: {
              year: "numeric",
              month: "long",
              day: "numeric",
              weekday: "long",
            },
          }[t.dateStyle],
        ),
        delete t.dateStyle),
      !hasTimeOptions(t) && !hasDateOptions(t))
    ) {
      if (hasAnyDateTimeOptions(e))
        throw new TypeError(
          "cannot format PlainDateTime with options [".concat(
            Object.keys(e),
            "]",
          ),
        );
      Object.assign(t, {
        year: "numeric",
        month: "numeric",
        day: "numeric",
        hour: "numeric",
        minute: "numeric",
        second: "numeric",
      });
    }
    return t;
  }
  function instantAmend(e) {
    var t = e;
    return (
      hasTimeOptions(t) ||
        hasDateOptions(t) ||
        (t = Object.assign({}, t, {
          year: "numeric",
          month: "numeric",
          day: "numeric",
          hour: "numeric",
          minute: "numeric",
          second: "numeric",
        })),
      t
    );
  }
  function hasDateOptions(e) {
    return (
      "year" in e ||
      "month" in e ||
      "day" in e ||
      "weekday" in e ||
      "dateStyle" in e ||
      "era" in e
    );
  }
  function hasTimeOptions(e) {
    return (
      "hour" in e ||
      "minute" in e ||
      "second" in e ||
      "timeStyle" in e ||
      "dayPeriod" in e ||
      "fractionalSecondDigits" in e
    );
  }
  function hasAnyDateTimeOptions(e) {
    return (
      hasDateOptions(e) ||
      hasTimeOptions(e) ||
      "dateStyle" in e ||
      "timeStyle" in e ||
      "timeZoneName" in e
    );
  }
  function isTemporalObject(e) {
    return (
      IsTemporalDate(e) ||
      IsTemporalTime(e) ||
      IsTemporalDateTime(e) ||
      IsTemporalZonedDateTime(e) ||
      IsTemporalYearMonth(e) ||
      IsTemporalMonthDay(e) ||
      IsTemporalInstant(e)
    );
  }
  function toDateTimeFormattable(e) {
    return isTemporalObject(e) ? e : ToNumber(e);
  }
  function sameTemporalType(e, t) {
    return !(
      !isTemporalObject(e) ||
      !isTemporalObject(t) ||
      (IsTemporalTime(e) && !IsTemporalTime(t)) ||
      (IsTemporalDate(e) && !IsTemporalDate(t)) ||
      (IsTemporalDateTime(e) && !IsTemporalDateTime(t)) ||
      (IsTemporalZonedDateTime(e) && !IsTemporalZonedDateTime(t)) ||
      (IsTemporalYearMonth(e) && !IsTemporalYearMonth(t)) ||
      (IsTemporalMonthDay(e) && !IsTemporalMonthDay(t)) ||
      (IsTemporalInstant(e) && !IsTemporalInstant(t))
    );
  }
  function extractOverrides(e, t) {
    if (IsTemporalTime(e)) {
      var n = {
        isoDate: { year: 1970, month: 1, day: 1 },
        time: GetSlot(e, y),
      };
      return {
        epochNs: GetEpochNanosecondsFor(GetSlot(t, U), n, "compatible"),
        formatter: getSlotLazy(t, Y),
      };
    }
    if (IsTemporalYearMonth(e)) {
      var r = GetSlot(e, T),
        a = GetSlot(t, H);
      if (r !== a)
        throw new RangeError(
          "cannot format PlainYearMonth with calendar "
            .concat(r, " in locale with calendar ")
            .concat(a),
        );
      var o = CombineISODateAndTimeRecord(GetSlot(e, D), {
        deltaDays: 0,
        hour: 12,
        minute: 0,
        second: 0,
        millisecond: 0,
        microsecond: 0,
        nanosecond: 0,
      });
      return {
        epochNs: GetEpochNanosecondsFor(GetSlot(t, U), o, "compatible"),
        formatter: getSlotLazy(t, j),
      };
    }
    if (IsTemporalMonthDay(e)) {
      var i = GetSlot(e, T),
        u = GetSlot(t, H);
      if (i !== u)
        throw new RangeError(
          "cannot format PlainMonthDay with calendar "
            .concat(i, " in locale with calendar ")
            .concat(u),
        );
      var s = CombineISODateAndTimeRecord(GetSlot(e, D), {
        deltaDays: 0,
        hour: 12,
        minute: 0,
        second: 0,
        millisecond: 0,
        microsecond: 0,
        nanosecond: 0,
      });
      return {
        epochNs: GetEpochNanosecondsFor(GetSlot(t, U), s, "compatible"),
        formatter: getSlotLazy(t, N),
      };
    }
    if (IsTemporalDate(e)) {
      var l = GetSlot(e, T),
        c = GetSlot(t, H);
      if ("iso8601" !== l && l !== c)
        throw new RangeError(
          "cannot format PlainDate with calendar "
            .concat(l, " in locale with calendar ")
            .concat(c),
        );
      var d = CombineISODateAndTimeRecord(GetSlot(e, D), {
        deltaDays: 0,
        hour: 12,
        minute: 0,
        second: 0,
        millisecond: 0,
        microsecond: 0,
        nanosecond: 0,
      });
      return {
        epochNs: GetEpochNanosecondsFor(GetSlot(t, U), d, "compatible"),
        formatter: getSlotLazy(t, P),
      };
    }
    if (IsTemporalDateTime(e)) {
      var m = GetSlot(e, T),
        h = GetSlot(t, H);
      if ("iso8601" !== m && m !== h)
        throw new RangeError(
          "cannot format PlainDateTime with calendar "
            .concat(m, " in locale with calendar ")
            .concat(h),
        );
      var f = GetSlot(e, g);
      return {
        epochNs: GetEpochNanosecondsFor(GetSlot(t, U), f, "compatible"),
        formatter: getSlotLazy(t, J),
      };
    }
    if (IsTemporalZonedDateTime(e))
      throw new TypeError(
        "Temporal.ZonedDateTime not supported in DateTimeFormat methods. Use toLocaleString() instead.",
      );
    return IsTemporalInstant(e)
      ? { epochNs: GetSlot(e, v), formatter: getSlotLazy(t, L) }
      : {};
  }
  function temporalDurationToCompatibilityRecord(e) {
    var t = Object.create(null);
    return (
      (t.years = GetSlot(e, O)),
      (t.months = GetSlot(e, b)),
      (t.weeks = GetSlot(e, w)),
      (t.days = GetSlot(e, k)),
      (t.hours = GetSlot(e, E)),
      (t.minutes = GetSlot(e, B)),
      (t.seconds = GetSlot(e, R)),
      (t.milliseconds = GetSlot(e, G)),
      (t.microseconds = GetSlot(e, M)),
      (t.nanoseconds = GetSlot(e, A)),
      t
    );
  }
  ((Jt.prototype.constructor = Lt),
    Object.defineProperty(Lt, "prototype", {
      value: Jt.prototype,
      writable: !1,
      enumerable: !1,
      configurable: !1,
    }),
    (Lt.supportedLocalesOf = Yt.supportedLocalesOf),
    MakeIntrinsicClass(Lt, "Intl.DateTimeFormat"));
  var Zt =
      null !==
        (mt =
          null === (ht = Intl.DurationFormat) || void 0 === ht
            ? void 0
            : ht.prototype) && void 0 !== mt
        ? mt
        : Object.create(null),
    Ut = Zt.format,
    xt = Zt.formatToParts;
  function ModifiedIntlDurationFormatPrototypeFormat(e) {
    Intl.DurationFormat.prototype.resolvedOptions.call(this);
    var t = temporalDurationToCompatibilityRecord(ToTemporalDuration(e));
    return Ut.call(this, t);
  }
  null !== (ft = Intl.DurationFormat) &&
    void 0 !== ft &&
    ft.prototype &&
    ((Intl.DurationFormat.prototype.format =
      ModifiedIntlDurationFormatPrototypeFormat),
    (Intl.DurationFormat.prototype.formatToParts = function formatToParts(e) {
      Intl.DurationFormat.prototype.resolvedOptions.call(this);
      var t = temporalDurationToCompatibilityRecord(ToTemporalDuration(e));
      return xt.call(this, t);
    }));
  var Ht = Object.freeze({
      __proto__: null,
      DateTimeFormat: Lt,
      ModifiedIntlDurationFormatPrototypeFormat,
    }),
    Wt = (function () {
      function Instant(e) {
        if ((_classCallCheck(this, Instant), arguments.length < 1))
          throw new TypeError("missing argument: epochNanoseconds is required");
        CreateTemporalInstantSlots(this, ToBigInt(e));
      }
      return (
        _createClass(
          Instant,
          [
            {
              key: "epochMilliseconds",
              get: function get() {
                return (
                  CheckReceiver(this, IsTemporalInstant),
                  epochNsToMs(GetSlot(this, v), "floor")
                );
              },
            },
            {
              key: "epochNanoseconds",
              get: function get() {
                return (
                  CheckReceiver(this, IsTemporalInstant),
                  ToBigIntExternal(t.BigInt(GetSlot(this, v)))
                );
              },
            },
            {
              key: "add",
              value: function add(e) {
                return (
                  CheckReceiver(this, IsTemporalInstant),
                  AddDurationToInstant("add", this, e)
                );
              },
            },
            {
              key: "subtract",
              value: function subtract(e) {
                return (
                  CheckReceiver(this, IsTemporalInstant),
                  AddDurationToInstant("subtract", this, e)
                );
              },
            },
            {
              key: "until",
              value: function until(e) {
                var t =
                  arguments.length > 1 && void 0 !== arguments[1]
                    ? arguments[1]
                    : void 0;
                return (
                  CheckReceiver(this, IsTemporalInstant),
                  DifferenceTemporalInstant("until", this, e, t)
                );
              },
            },
            {
              key: "since",
              value: function since(e) {
                var t =
                  arguments.length > 1 && void 0 !== arguments[1]
                    ? arguments[1]
                    : void 0;
                return (
                  CheckReceiver(this, IsTemporalInstant),
                  DifferenceTemporalInstant("since", this, e, t)
                );
              },
            },
            {
              key: "round",
              value: function round(e) {
                if ((CheckReceiver(this, IsTemporalInstant), void 0 === e))
                  throw new TypeError("options parameter is required");
                var t =
                    "string" == typeof e
                      ? CreateOnePropObject("smallestUnit", e)
                      : GetOptionsObject(e),
                  n = GetTemporalRoundingIncrementOption(t),
                  r = GetRoundingModeOption(t, "halfExpand"),
                  a = GetTemporalUnitValuedOption(
                    t,
                    "smallestUnit",
                    "time",
                    We,
                  );
                return (
                  ValidateTemporalRoundingIncrement(
                    n,
                    {
                      hour: 24,
                      minute: 1440,
                      second: 86400,
                      millisecond: 864e5,
                      microsecond: 864e8,
                      nanosecond: 864e11,
                    }[a],
                    !0,
                  ),
                  CreateTemporalInstant(
                    RoundTemporalInstant(GetSlot(this, v), n, a, r),
                  )
                );
              },
            },
            {
              key: "equals",
              value: function equals(e) {
                CheckReceiver(this, IsTemporalInstant);
                var n = ToTemporalInstant(e),
                  r = GetSlot(this, v),
                  a = GetSlot(n, v);
                return t.equal(t.BigInt(r), t.BigInt(a));
              },
            },
            {
              key: "toString",
              value: function toString() {
                var e =
                  arguments.length > 0 && void 0 !== arguments[0]
                    ? arguments[0]
                    : void 0;
                CheckReceiver(this, IsTemporalInstant);
                var t = GetOptionsObject(e),
                  n = GetTemporalFractionalSecondDigitsOption(t),
                  r = GetRoundingModeOption(t, "trunc"),
                  a = GetTemporalUnitValuedOption(
                    t,
                    "smallestUnit",
                    "time",
                    void 0,
                  );
                if ("hour" === a)
                  throw new RangeError(
                    'smallestUnit must be a time unit other than "hour"',
                  );
                var o = t.timeZone;
                void 0 !== o && (o = ToTemporalTimeZoneIdentifier(o));
                var i = ToSecondsStringPrecisionRecord(a, n),
                  u = i.precision,
                  s = i.unit,
                  l = i.increment;
                return TemporalInstantToString(
                  CreateTemporalInstant(
                    RoundTemporalInstant(GetSlot(this, v), l, s, r),
                  ),
                  o,
                  u,
                );
              },
            },
            {
              key: "toJSON",
              value: function toJSON() {
                return (
                  CheckReceiver(this, IsTemporalInstant),
                  TemporalInstantToString(this, void 0, "auto")
                );
              },
            },
            {
              key: "toLocaleString",
              value: function toLocaleString() {
                var e =
                    arguments.length > 0 && void 0 !== arguments[0]
                      ? arguments[0]
                      : void 0,
                  t =
                    arguments.length > 1 && void 0 !== arguments[1]
                      ? arguments[1]
                      : void 0;
                return (
                  CheckReceiver(this, IsTemporalInstant),
                  new Lt(e, t).format(this)
                );
              },
            },
            {
              key: "valueOf",
              value: function valueOf() {
                ValueOfThrows("Instant");
              },
            },
            {
              key: "toZonedDateTimeISO",
              value: function toZonedDateTimeISO(e) {
                CheckReceiver(this, IsTemporalInstant);
                var t = ToTemporalTimeZoneIdentifier(e);
                return CreateTemporalZonedDateTime(
                  GetSlot(this, v),
                  t,
                  "iso8601",
                );
              },
            },
          ],
          [
            {
              key: "fromEpochMilliseconds",
              value: function fromEpochMilliseconds(e) {
                return CreateTemporalInstant(epochMsToNs(ToNumber(e)));
              },
            },
            {
              key: "fromEpochNanoseconds",
              value: function fromEpochNanoseconds(e) {
                return CreateTemporalInstant(ToBigInt(e));
              },
            },
            {
              key: "from",
              value: function from(e) {
                return ToTemporalInstant(e);
              },
            },
            {
              key: "compare",
              value: function compare(e, n) {
                var r = ToTemporalInstant(e),
                  a = ToTemporalInstant(n),
                  o = GetSlot(r, v),
                  i = GetSlot(a, v);
                return t.lessThan(o, i) ? -1 : t.greaterThan(o, i) ? 1 : 0;
              },
            },
          ],
        ),
        Instant
      );
    })();
  MakeIntrinsicClass(Wt, "Temporal.Instant");
  var zt = (function () {
    function PlainDate(e, t, n) {
      var r =
        arguments.length > 3 && void 0 !== arguments[3]
          ? arguments[3]
          : "iso8601";
      _classCallCheck(this, PlainDate);
      var a = ToIntegerWithTruncation(e),
        o = ToIntegerWithTruncation(t),
        i = ToIntegerWithTruncation(n),
        u = CanonicalizeCalendar(void 0 === r ? "iso8601" : RequireString(r));
      (RejectISODate(a, o, i),
        CreateTemporalDateSlots(this, { year: a, month: o, day: i }, u));
    }
    return (
      _createClass(
        PlainDate,
        [
          {
            key: "calendarId",
            get: function get() {
              return (CheckReceiver(this, IsTemporalDate), GetSlot(this, T));
            },
          },
          {
            key: "era",
            get: function get() {
              return getCalendarProperty$4(this, "era");
            },
          },
          {
            key: "eraYear",
            get: function get() {
              return getCalendarProperty$4(this, "eraYear");
            },
          },
          {
            key: "year",
            get: function get() {
              return getCalendarProperty$4(this, "year");
            },
          },
          {
            key: "month",
            get: function get() {
              return getCalendarProperty$4(this, "month");
            },
          },
          {
            key: "monthCode",
            get: function get() {
              return getCalendarProperty$4(this, "monthCode");
            },
          },
          {
            key: "day",
            get: function get() {
              return getCalendarProperty$4(this, "day");
            },
          },
          {
            key: "dayOfWeek",
            get: function get() {
              return getCalendarProperty$4(this, "dayOfWeek");
            },
          },
          {
            key: "dayOfYear",
            get: function get() {
              return getCalendarProperty$4(this, "dayOfYear");
            },
          },
          {
            key: "weekOfYear",
            get: function get() {
              var e;
              return null === (e = getCalendarProperty$4(this, "weekOfYear")) ||
                void 0 === e
                ? void 0
                : e.week;
            },
          },
          {
            key: "yearOfWeek",
            get: function get() {
              var e;
              return null === (e = getCalendarProperty$4(this, "weekOfYear")) ||
                void 0 === e
                ? void 0
                : e.year;
            },
          },
          {
            key: "daysInWeek",
            get: function get() {
              return getCalendarProperty$4(this, "daysInWeek");
            },
          },
          {
            key: "daysInMonth",
            get: function get() {
              return getCalendarProperty$4(this, "daysInMonth");
            },
          },
          {
            key: "daysInYear",
            get: function get() {
              return getCalendarProperty$4(this, "daysInYear");
            },
          },
          {
            key: "monthsInYear",
            get: function get() {
              return getCalendarProperty$4(this, "monthsInYear");
            },
          },
          {
            key: "inLeapYear",
            get: function get() {
              return getCalendarProperty$4(this, "inLeapYear");
            },
          },
          {
            key: "with",
            value: function _with(e) {
              var t =
                arguments.length > 1 && void 0 !== arguments[1]
                  ? arguments[1]
                  : void 0;
              if ((CheckReceiver(this, IsTemporalDate), !IsObject(e)))
                throw new TypeError("invalid argument");
              RejectTemporalLikeObject(e);
              var n = GetSlot(this, T),
                r = ISODateToFields(n, GetSlot(this, D));
              return CreateTemporalDate(
                CalendarDateFromFields(
                  n,
                  (r = CalendarMergeFields(
                    n,
                    r,
                    PrepareCalendarFields(
                      n,
                      e,
                      ["year", "month", "monthCode", "day"],
                      [],
                      "partial",
                    ),
                  )),
                  GetTemporalOverflowOption(GetOptionsObject(t)),
                ),
                n,
              );
            },
          },
          {
            key: "withCalendar",
            value: function withCalendar(e) {
              CheckReceiver(this, IsTemporalDate);
              var t = ToTemporalCalendarIdentifier(e);
              return CreateTemporalDate(GetSlot(this, D), t);
            },
          },
          {
            key: "add",
            value: function add(e) {
              var t =
                arguments.length > 1 && void 0 !== arguments[1]
                  ? arguments[1]
                  : void 0;
              return (
                CheckReceiver(this, IsTemporalDate),
                AddDurationToDate("add", this, e, t)
              );
            },
          },
          {
            key: "subtract",
            value: function subtract(e) {
              var t =
                arguments.length > 1 && void 0 !== arguments[1]
                  ? arguments[1]
                  : void 0;
              return (
                CheckReceiver(this, IsTemporalDate),
                AddDurationToDate("subtract", this, e, t)
              );
            },
          },
          {
            key: "until",
            value: function until(e) {
              var t =
                arguments.length > 1 && void 0 !== arguments[1]
                  ? arguments[1]
                  : void 0;
              return (
                CheckReceiver(this, IsTemporalDate),
                DifferenceTemporalPlainDate("until", this, e, t)
              );
            },
          },
          {
            key: "since",
            value: function since(e) {
              var t =
                arguments.length > 1 && void 0 !== arguments[1]
                  ? arguments[1]
                  : void 0;
              return (
                CheckReceiver(this, IsTemporalDate),
                DifferenceTemporalPlainDate("since", this, e, t)
              );
            },
          },
          {
            key: "equals",
            value: function equals(e) {
              CheckReceiver(this, IsTemporalDate);
              var t = ToTemporalDate(e);
              return (
                0 === CompareISODate(GetSlot(this, D), GetSlot(t, D)) &&
                CalendarEquals(GetSlot(this, T), GetSlot(t, T))
              );
            },
          },
          {
            key: "toString",
            value: function toString() {
              var e =
                arguments.length > 0 && void 0 !== arguments[0]
                  ? arguments[0]
                  : void 0;
              return (
                CheckReceiver(this, IsTemporalDate),
                TemporalDateToString(
                  this,
                  GetTemporalShowCalendarNameOption(GetOptionsObject(e)),
                )
              );
            },
          },
          {
            key: "toJSON",
            value: function toJSON() {
              return (
                CheckReceiver(this, IsTemporalDate),
                TemporalDateToString(this)
              );
            },
          },
          {
            key: "toLocaleString",
            value: function toLocaleString() {
              var e =
                  arguments.length > 0 && void 0 !== arguments[0]
                    ? arguments[0]
                    : void 0,
                t =
                  arguments.length > 1 && void 0 !== arguments[1]
                    ? arguments[1]
                    : void 0;
              return (
                CheckReceiver(this, IsTemporalDate),
                new Lt(e, t).format(this)
              );
            },
          },
          {
            key: "valueOf",
            value: function valueOf() {
              ValueOfThrows("PlainDate");
            },
          },
          {
            key: "toPlainDateTime",
            value: function toPlainDateTime() {
              var e =
                arguments.length > 0 && void 0 !== arguments[0]
                  ? arguments[0]
                  : void 0;
              CheckReceiver(this, IsTemporalDate);
              var t = ToTimeRecordOrMidnight(e);
              return CreateTemporalDateTime(
                CombineISODateAndTimeRecord(GetSlot(this, D), t),
                GetSlot(this, T),
              );
            },
          },
          {
            key: "toZonedDateTime",
            value: function toZonedDateTime(e) {
              var t, n;
              if ((CheckReceiver(this, IsTemporalDate), IsObject(e))) {
                var r = e.timeZone;
                void 0 === r
                  ? (t = ToTemporalTimeZoneIdentifier(e))
                  : ((t = ToTemporalTimeZoneIdentifier(r)), (n = e.plainTime));
              } else t = ToTemporalTimeZoneIdentifier(e);
              var a = GetSlot(this, D);
              return CreateTemporalZonedDateTime(
                void 0 === n
                  ? GetStartOfDay(t, a)
                  : GetEpochNanosecondsFor(
                      t,
                      CombineISODateAndTimeRecord(
                        a,
                        GetSlot((n = ToTemporalTime(n)), y),
                      ),
                      "compatible",
                    ),
                t,
                GetSlot(this, T),
              );
            },
          },
          {
            key: "toPlainYearMonth",
            value: function toPlainYearMonth() {
              CheckReceiver(this, IsTemporalDate);
              var e = GetSlot(this, T);
              return CreateTemporalYearMonth(
                CalendarYearMonthFromFields(
                  e,
                  ISODateToFields(e, GetSlot(this, D)),
                  "constrain",
                ),
                e,
              );
            },
          },
          {
            key: "toPlainMonthDay",
            value: function toPlainMonthDay() {
              CheckReceiver(this, IsTemporalDate);
              var e = GetSlot(this, T);
              return CreateTemporalMonthDay(
                CalendarMonthDayFromFields(
                  e,
                  ISODateToFields(e, GetSlot(this, D)),
                  "constrain",
                ),
                e,
              );
            },
          },
        ],
        [
          {
            key: "from",
            value: function from(e) {
              return ToTemporalDate(
                e,
                arguments.length > 1 && void 0 !== arguments[1]
                  ? arguments[1]
                  : void 0,
              );
            },
          },
          {
            key: "compare",
            value: function compare(e, t) {
              var n = ToTemporalDate(e),
                r = ToTemporalDate(t);
              return CompareISODate(GetSlot(n, D), GetSlot(r, D));
            },
          },
        ],
      ),
      PlainDate
    );
  })();
  function getCalendarProperty$4(e, t) {
    CheckReceiver(e, IsTemporalDate);
    var n = GetSlot(e, D);
    return calendarImplForObj(e).isoToDate(n, _defineProperty({}, t, !0))[t];
  }
  MakeIntrinsicClass(zt, "Temporal.PlainDate");
  var qt = (function () {
    function PlainDateTime(e, t, n) {
      var r =
          arguments.length > 3 && void 0 !== arguments[3] ? arguments[3] : 0,
        a = arguments.length > 4 && void 0 !== arguments[4] ? arguments[4] : 0,
        o = arguments.length > 5 && void 0 !== arguments[5] ? arguments[5] : 0,
        i = arguments.length > 6 && void 0 !== arguments[6] ? arguments[6] : 0,
        u = arguments.length > 7 && void 0 !== arguments[7] ? arguments[7] : 0,
        s = arguments.length > 8 && void 0 !== arguments[8] ? arguments[8] : 0,
        l =
          arguments.length > 9 && void 0 !== arguments[9]
            ? arguments[9]
            : "iso8601";
      _classCallCheck(this, PlainDateTime);
      var c = ToIntegerWithTruncation(e),
        d = ToIntegerWithTruncation(t),
        m = ToIntegerWithTruncation(n),
        h = void 0 === r ? 0 : ToIntegerWithTruncation(r),
        f = void 0 === a ? 0 : ToIntegerWithTruncation(a),
        p = void 0 === o ? 0 : ToIntegerWithTruncation(o),
        v = void 0 === i ? 0 : ToIntegerWithTruncation(i),
        D = void 0 === u ? 0 : ToIntegerWithTruncation(u),
        g = void 0 === s ? 0 : ToIntegerWithTruncation(s),
        y = CanonicalizeCalendar(void 0 === l ? "iso8601" : RequireString(l));
      (RejectDateTime(c, d, m, h, f, p, v, D, g),
        CreateTemporalDateTimeSlots(
          this,
          {
            isoDate: { year: c, month: d, day: m },
            time: {
              hour: h,
              minute: f,
              second: p,
              millisecond: v,
              microsecond: D,
              nanosecond: g,
            },
          },
          y,
        ));
    }
    return (
      _createClass(
        PlainDateTime,
        [
          {
            key: "calendarId",
            get: function get() {
              return (
                CheckReceiver(this, IsTemporalDateTime),
                GetSlot(this, T)
              );
            },
          },
          {
            key: "year",
            get: function get() {
              return getCalendarProperty$3(this, "year");
            },
          },
          {
            key: "month",
            get: function get() {
              return getCalendarProperty$3(this, "month");
            },
          },
          {
            key: "monthCode",
            get: function get() {
              return getCalendarProperty$3(this, "monthCode");
            },
          },
          {
            key: "day",
            get: function get() {
              return getCalendarProperty$3(this, "day");
            },
          },
          {
            key: "hour",
            get: function get() {
              return getTimeProperty$1(this, "hour");
            },
          },
          {
            key: "minute",
            get: function get() {
              return getTimeProperty$1(this, "minute");
            },
          },
          {
            key: "second",
            get: function get() {
              return getTimeProperty$1(this, "second");
            },
          },
          {
            key: "millisecond",
            get: function get() {
              return getTimeProperty$1(this, "millisecond");
            },
          },
          {
            key: "microsecond",
            get: function get() {
              return getTimeProperty$1(this, "microsecond");
            },
          },
          {
            key: "nanosecond",
            get: function get() {
              return getTimeProperty$1(this, "nanosecond");
            },
          },
          {
            key: "era",
            get: function get() {
              return getCalendarProperty$3(this, "era");
            },
          },
          {
            key: "eraYear",
            get: function get() {
              return getCalendarProperty$3(this, "eraYear");
            },
          },
          {
            key: "dayOfWeek",
            get: function get() {
              return getCalendarProperty$3(this, "dayOfWeek");
            },
          },
          {
            key: "dayOfYear",
            get: function get() {
              return getCalendarProperty$3(this, "dayOfYear");
            },
          },
          {
            key: "weekOfYear",
            get: function get() {
              var e;
              return null === (e = getCalendarProperty$3(this, "weekOfYear")) ||
                void 0 === e
                ? void 0
                : e.week;
            },
          },
          {
            key: "yearOfWeek",
            get: function get() {
              var e;
              return null === (e = getCalendarProperty$3(this, "weekOfYear")) ||
                void 0 === e
                ? void 0
                : e.year;
            },
          },
          {
            key: "daysInWeek",
            get: function get() {
              return getCalendarProperty$3(this, "daysInWeek");
            },
          },
          {
            key: "daysInYear",
            get: function get() {
              return getCalendarProperty$3(this, "daysInYear");
            },
          },
          {
            key: "daysInMonth",
            get: function get() {
              return getCalendarProperty$3(this, "daysInMonth");
            },
          },
          {
            key: "monthsInYear",
            get: function get() {
              return getCalendarProperty$3(this, "monthsInYear");
            },
          },
          {
            key: "inLeapYear",
            get: function get() {
              return getCalendarProperty$3(this, "inLeapYear");
            },
          },
          {
            key: "with",
            value: function _with(e) {
              var t =
                arguments.length > 1 && void 0 !== arguments[1]
                  ? arguments[1]
                  : void 0;
              if ((CheckReceiver(this, IsTemporalDateTime), !IsObject(e)))
                throw new TypeError("invalid argument");
              RejectTemporalLikeObject(e);
              var n = GetSlot(this, T),
                r = GetSlot(this, g),
                a = _objectSpread2(
                  _objectSpread2({}, ISODateToFields(n, r.isoDate)),
                  r.time,
                );
              return CreateTemporalDateTime(
                InterpretTemporalDateTimeFields(
                  n,
                  (a = CalendarMergeFields(
                    n,
                    a,
                    PrepareCalendarFields(
                      n,
                      e,
                      ["year", "month", "monthCode", "day"],
                      [
                        "hour",
                        "minute",
                        "second",
                        "millisecond",
                        "microsecond",
                        "nanosecond",
                      ],
                      "partial",
                    ),
                  )),
                  GetTemporalOverflowOption(GetOptionsObject(t)),
                ),
                n,
              );
            },
          },
          {
            key: "withPlainTime",
            value: function withPlainTime() {
              var e =
                arguments.length > 0 && void 0 !== arguments[0]
                  ? arguments[0]
                  : void 0;
              CheckReceiver(this, IsTemporalDateTime);
              var t = ToTimeRecordOrMidnight(e);
              return CreateTemporalDateTime(
                CombineISODateAndTimeRecord(GetSlot(this, g).isoDate, t),
                GetSlot(this, T),
              );
            },
          },
          {
            key: "withCalendar",
            value: function withCalendar(e) {
              CheckReceiver(this, IsTemporalDateTime);
              var t = ToTemporalCalendarIdentifier(e);
              return CreateTemporalDateTime(GetSlot(this, g), t);
            },
          },
          {
            key: "add",
            value: function add(e) {
              var t =
                arguments.length > 1 && void 0 !== arguments[1]
                  ? arguments[1]
                  : void 0;
              return (
                CheckReceiver(this, IsTemporalDateTime),
                AddDurationToDateTime("add", this, e, t)
              );
            },
          },
          {
            key: "subtract",
            value: function subtract(e) {
              var t =
                arguments.length > 1 && void 0 !== arguments[1]
                  ? arguments[1]
                  : void 0;
              return (
                CheckReceiver(this, IsTemporalDateTime),
                AddDurationToDateTime("subtract", this, e, t)
              );
            },
          },
          {
            key: "until",
            value: function until(e) {
              var t =
                arguments.length > 1 && void 0 !== arguments[1]
                  ? arguments[1]
                  : void 0;
              return (
                CheckReceiver(this, IsTemporalDateTime),
                DifferenceTemporalPlainDateTime("until", this, e, t)
              );
            },
          },
          {
            key: "since",
            value: function since(e) {
              var t =
                arguments.length > 1 && void 0 !== arguments[1]
                  ? arguments[1]
                  : void 0;
              return (
                CheckReceiver(this, IsTemporalDateTime),
                DifferenceTemporalPlainDateTime("since", this, e, t)
              );
            },
          },
          {
            key: "round",
            value: function round(e) {
              if ((CheckReceiver(this, IsTemporalDateTime), void 0 === e))
                throw new TypeError("options parameter is required");
              var t =
                  "string" == typeof e
                    ? CreateOnePropObject("smallestUnit", e)
                    : GetOptionsObject(e),
                n = GetTemporalRoundingIncrementOption(t),
                r = GetRoundingModeOption(t, "halfExpand"),
                a = GetTemporalUnitValuedOption(t, "smallestUnit", "time", We, [
                  "day",
                ]),
                o = {
                  day: 1,
                  hour: 24,
                  minute: 60,
                  second: 60,
                  millisecond: 1e3,
                  microsecond: 1e3,
                  nanosecond: 1e3,
                }[a];
              ValidateTemporalRoundingIncrement(n, o, 1 === o);
              var i = GetSlot(this, g);
              return CreateTemporalDateTime(
                1 === n && "nanosecond" === a
                  ? i
                  : RoundISODateTime(i, n, a, r),
                GetSlot(this, T),
              );
            },
          },
          {
            key: "equals",
            value: function equals(e) {
              CheckReceiver(this, IsTemporalDateTime);
              var t = ToTemporalDateTime(e);
              return (
                0 === CompareISODateTime(GetSlot(this, g), GetSlot(t, g)) &&
                CalendarEquals(GetSlot(this, T), GetSlot(t, T))
              );
            },
          },
          {
            key: "toString",
            value: function toString() {
              var e =
                arguments.length > 0 && void 0 !== arguments[0]
                  ? arguments[0]
                  : void 0;
              CheckReceiver(this, IsTemporalDateTime);
              var t = GetOptionsObject(e),
                n = GetTemporalShowCalendarNameOption(t),
                r = GetTemporalFractionalSecondDigitsOption(t),
                a = GetRoundingModeOption(t, "trunc"),
                o = GetTemporalUnitValuedOption(
                  t,
                  "smallestUnit",
                  "time",
                  void 0,
                );
              if ("hour" === o)
                throw new RangeError(
                  'smallestUnit must be a time unit other than "hour"',
                );
              var i = ToSecondsStringPrecisionRecord(o, r),
                u = i.precision,
                s = i.unit,
                l = i.increment,
                c = RoundISODateTime(GetSlot(this, g), l, s, a);
              return (
                RejectDateTimeRange(c),
                ISODateTimeToString(c, GetSlot(this, T), u, n)
              );
            },
          },
          {
            key: "toJSON",
            value: function toJSON() {
              return (
                CheckReceiver(this, IsTemporalDateTime),
                ISODateTimeToString(GetSlot(this, g), GetSlot(this, T), "auto")
              );
            },
          },
          {
            key: "toLocaleString",
            value: function toLocaleString() {
              var e =
                  arguments.length > 0 && void 0 !== arguments[0]
                    ? arguments[0]
                    : void 0,
                t =
                  arguments.length > 1 && void 0 !== arguments[1]
                    ? arguments[1]
                    : void 0;
              return (
                CheckReceiver(this, IsTemporalDateTime),
                new Lt(e, t).format(this)
              );
            },
          },
          {
            key: "valueOf",
            value: function valueOf() {
              ValueOfThrows("PlainDateTime");
            },
          },
          {
            key: "toZonedDateTime",
            value: function toZonedDateTime(e) {
              var t =
                arguments.length > 1 && void 0 !== arguments[1]
                  ? arguments[1]
                  : void 0;
              CheckReceiver(this, IsTemporalDateTime);
              var n = ToTemporalTimeZoneIdentifier(e),
                r = GetTemporalDisambiguationOption(GetOptionsObject(t));
              return CreateTemporalZonedDateTime(
                GetEpochNanosecondsFor(n, GetSlot(this, g), r),
                n,
                GetSlot(this, T),
              );
            },
          },
          {
            key: "toPlainDate",
            value: function toPlainDate() {
              return (
                CheckReceiver(this, IsTemporalDateTime),
                CreateTemporalDate(GetSlot(this, g).isoDate, GetSlot(this, T))
              );
            },
          },
          {
            key: "toPlainTime",
            value: function toPlainTime() {
              return (
                CheckReceiver(this, IsTemporalDateTime),
                CreateTemporalTime(GetSlot(this, g).time)
              );
            },
          },
        ],
        [
          {
            key: "from",
            value: function from(e) {
              return ToTemporalDateTime(
                e,
                arguments.length > 1 && void 0 !== arguments[1]
                  ? arguments[1]
                  : void 0,
              );
            },
          },
          {
            key: "compare",
            value: function compare(e, t) {
              var n = ToTemporalDateTime(e),
                r = ToTemporalDateTime(t);
              return CompareISODateTime(GetSlot(n, g), GetSlot(r, g));
            },
          },
        ],
      ),
      PlainDateTime
    );
  })();
  function getCalendarProperty$3(e, t) {
    CheckReceiver(e, IsTemporalDateTime);
    var n = GetSlot(e, g).isoDate;
    return calendarImplForObj(e).isoToDate(n, _defineProperty({}, t, !0))[t];
  }
  function getTimeProperty$1(e, t) {
    return (CheckReceiver(e, IsTemporalDateTime), GetSlot(e, g).time[t]);
  }
  MakeIntrinsicClass(qt, "Temporal.PlainDateTime");
  var $t = (function () {
    function Duration() {
      var e =
          arguments.length > 0 && void 0 !== arguments[0] ? arguments[0] : 0,
        t = arguments.length > 1 && void 0 !== arguments[1] ? arguments[1] : 0,
        n = arguments.length > 2 && void 0 !== arguments[2] ? arguments[2] : 0,
        r = arguments.length > 3 && void 0 !== arguments[3] ? arguments[3] : 0,
        a = arguments.length > 4 && void 0 !== arguments[4] ? arguments[4] : 0,
        o = arguments.length > 5 && void 0 !== arguments[5] ? arguments[5] : 0,
        i = arguments.length > 6 && void 0 !== arguments[6] ? arguments[6] : 0,
        u = arguments.length > 7 && void 0 !== arguments[7] ? arguments[7] : 0,
        s = arguments.length > 8 && void 0 !== arguments[8] ? arguments[8] : 0,
        l = arguments.length > 9 && void 0 !== arguments[9] ? arguments[9] : 0;
      _classCallCheck(this, Duration);
      var c = void 0 === e ? 0 : ToIntegerIfIntegral(e),
        d = void 0 === t ? 0 : ToIntegerIfIntegral(t),
        m = void 0 === n ? 0 : ToIntegerIfIntegral(n),
        h = void 0 === r ? 0 : ToIntegerIfIntegral(r),
        f = void 0 === a ? 0 : ToIntegerIfIntegral(a),
        p = void 0 === o ? 0 : ToIntegerIfIntegral(o),
        v = void 0 === i ? 0 : ToIntegerIfIntegral(i),
        D = void 0 === u ? 0 : ToIntegerIfIntegral(u),
        g = void 0 === s ? 0 : ToIntegerIfIntegral(s),
        y = void 0 === l ? 0 : ToIntegerIfIntegral(l);
      (RejectDuration(c, d, m, h, f, p, v, D, g, y),
        Q(this),
        SetSlot(this, O, c),
        SetSlot(this, b, d),
        SetSlot(this, w, m),
        SetSlot(this, k, h),
        SetSlot(this, E, f),
        SetSlot(this, B, p),
        SetSlot(this, R, v),
        SetSlot(this, G, D),
        SetSlot(this, M, g),
        SetSlot(this, A, y));
    }
    return (
      _createClass(
        Duration,
        [
          {
            key: "years",
            get: function get() {
              return (
                CheckReceiver(this, IsTemporalDuration),
                GetSlot(this, O)
              );
            },
          },
          {
            key: "months",
            get: function get() {
              return (
                CheckReceiver(this, IsTemporalDuration),
                GetSlot(this, b)
              );
            },
          },
          {
            key: "weeks",
            get: function get() {
              return (
                CheckReceiver(this, IsTemporalDuration),
                GetSlot(this, w)
              );
            },
          },
          {
            key: "days",
            get: function get() {
              return (
                CheckReceiver(this, IsTemporalDuration),
                GetSlot(this, k)
              );
            },
          },
          {
            key: "hours",
            get: function get() {
              return (
                CheckReceiver(this, IsTemporalDuration),
                GetSlot(this, E)
              );
            },
          },
          {
            key: "minutes",
            get: function get() {
              return (
                CheckReceiver(this, IsTemporalDuration),
                GetSlot(this, B)
              );
            },
          },
          {
            key: "seconds",
            get: function get() {
              return (
                CheckReceiver(this, IsTemporalDuration),
                GetSlot(this, R)
              );
            },
          },
          {
            key: "milliseconds",
            get: function get() {
              return (
                CheckReceiver(this, IsTemporalDuration),
                GetSlot(this, G)
              );
            },
          },
          {
            key: "microseconds",
            get: function get() {
              return (
                CheckReceiver(this, IsTemporalDuration),
                GetSlot(this, M)
              );
            },
          },
          {
            key: "nanoseconds",
            get: function get() {
              return (
                CheckReceiver(this, IsTemporalDuration),
                GetSlot(this, A)
              );
            },
          },
          {
            key: "sign",
            get: function get() {
              return (
                CheckReceiver(this, IsTemporalDuration),
                DurationSign(this)
              );
            },
          },
          {
            key: "blank",
            get: function get() {
              return (
                CheckReceiver(this, IsTemporalDuration),
                0 === DurationSign(this)
              );
            },
          },
          {
            key: "with",
            value: function _with(e) {
              CheckReceiver(this, IsTemporalDuration);
              var t = ToTemporalPartialDurationRecord(e),
                n = t.years,
                r = void 0 === n ? GetSlot(this, O) : n,
                a = t.months,
                o = void 0 === a ? GetSlot(this, b) : a,
                i = t.weeks,
                u = void 0 === i ? GetSlot(this, w) : i,
                s = t.days,
                l = void 0 === s ? GetSlot(this, k) : s,
                c = t.hours,
                d = void 0 === c ? GetSlot(this, E) : c,
                m = t.minutes,
                h = void 0 === m ? GetSlot(this, B) : m,
                f = t.seconds,
                p = void 0 === f ? GetSlot(this, R) : f,
                v = t.milliseconds,
                D = void 0 === v ? GetSlot(this, G) : v,
                g = t.microseconds,
                y = void 0 === g ? GetSlot(this, M) : g,
                T = t.nanoseconds;
              return new Duration(
                r,
                o,
                u,
                l,
                d,
                h,
                p,
                D,
                y,
                void 0 === T ? GetSlot(this, A) : T,
              );
            },
          },
          {
            key: "negated",
            value: function negated() {
              return (
                CheckReceiver(this, IsTemporalDuration),
                CreateNegatedTemporalDuration(this)
              );
            },
          },
          {
            key: "abs",
            value: function abs() {
              return (
                CheckReceiver(this, IsTemporalDuration),
                new Duration(
                  Math.abs(GetSlot(this, O)),
                  Math.abs(GetSlot(this, b)),
                  Math.abs(GetSlot(this, w)),
                  Math.abs(GetSlot(this, k)),
                  Math.abs(GetSlot(this, E)),
                  Math.abs(GetSlot(this, B)),
                  Math.abs(GetSlot(this, R)),
                  Math.abs(GetSlot(this, G)),
                  Math.abs(GetSlot(this, M)),
                  Math.abs(GetSlot(this, A)),
                )
              );
            },
          },
          {
            key: "add",
            value: function add(e) {
              return (
                CheckReceiver(this, IsTemporalDuration),
                AddDurations("add", this, e)
              );
            },
          },
          {
            key: "subtract",
            value: function subtract(e) {
              return (
                CheckReceiver(this, IsTemporalDuration),
                AddDurations("subtract", this, e)
              );
            },
          },
          {
            key: "round",
            value: function round(e) {
              if ((CheckReceiver(this, IsTemporalDuration), void 0 === e))
                throw new TypeError("options parameter is required");
              var t = DefaultTemporalLargestUnit(this),
                n =
                  "string" == typeof e
                    ? CreateOnePropObject("smallestUnit", e)
                    : GetOptionsObject(e),
                r = GetTemporalUnitValuedOption(
                  n,
                  "largestUnit",
                  "datetime",
                  void 0,
                  ["auto"],
                ),
                a = GetTemporalRelativeToOption(n),
                o = a.plainRelativeTo,
                i = a.zonedRelativeTo,
                u = GetTemporalRoundingIncrementOption(n),
                s = GetRoundingModeOption(n, "halfExpand"),
                l = GetTemporalUnitValuedOption(
                  n,
                  "smallestUnit",
                  "datetime",
                  void 0,
                ),
                c = !0;
              l || ((c = !1), (l = "nanosecond"));
              var d = LargerOfTwoTemporalUnits(t, l),
                m = !0;
              if ((r || ((m = !1), (r = d)), "auto" === r && (r = d), !c && !m))
                throw new RangeError(
                  "at least one of smallestUnit or largestUnit is required",
                );
              if (LargerOfTwoTemporalUnits(r, l) !== r)
                throw new RangeError(
                  "largestUnit "
                    .concat(r, " cannot be smaller than smallestUnit ")
                    .concat(l),
                );
              var h = {
                hour: 24,
                minute: 60,
                second: 60,
                millisecond: 1e3,
                microsecond: 1e3,
                nanosecond: 1e3,
              }[l];
              if (
                (void 0 !== h && ValidateTemporalRoundingIncrement(u, h, !1),
                u > 1 && "date" === TemporalUnitCategory(l) && r !== l)
              )
                throw new RangeError(
                  "For calendar units with roundingIncrement > 1, use largestUnit = smallestUnit",
                );
              if (i) {
                var f = ToInternalDurationRecord(this),
                  p = GetSlot(i, _),
                  g = GetSlot(i, T),
                  y = GetSlot(i, v);
                return (
                  (f = DifferenceZonedDateTimeWithRounding(
                    y,
                    AddZonedDateTime(y, p, g, f),
                    p,
                    g,
                    r,
                    u,
                    l,
                    s,
                  )),
                  "date" === TemporalUnitCategory(r) && (r = "hour"),
                  TemporalDurationFromInternal(f, r)
                );
              }
              if (o) {
                var S = ToInternalDurationRecordWith24HourDays(this),
                  I = AddTime(
                    {
                      deltaDays: 0,
                      hour: 0,
                      minute: 0,
                      second: 0,
                      millisecond: 0,
                      microsecond: 0,
                      nanosecond: 0,
                    },
                    S.time,
                  ),
                  C = GetSlot(o, D),
                  O = GetSlot(o, T),
                  b = CalendarDateAdd(
                    O,
                    C,
                    AdjustDateDurationRecord(S.date, I.deltaDays),
                    "constrain",
                  );
                return TemporalDurationFromInternal(
                  (S = DifferencePlainDateTimeWithRounding(
                    CombineISODateAndTimeRecord(C, {
                      deltaDays: 0,
                      hour: 0,
                      minute: 0,
                      second: 0,
                      millisecond: 0,
                      microsecond: 0,
                      nanosecond: 0,
                    }),
                    CombineISODateAndTimeRecord(b, I),
                    O,
                    r,
                    u,
                    l,
                    s,
                  )),
                  r,
                );
              }
              if (IsCalendarUnit(t))
                throw new RangeError(
                  "a starting point is required for ".concat(t, "s balancing"),
                );
              if (IsCalendarUnit(r))
                throw new RangeError(
                  "a starting point is required for ".concat(r, "s balancing"),
                );
              var w = ToInternalDurationRecordWith24HourDays(this);
              if ("day" === l) {
                var k = w.time.divmod(Te),
                  E = k.quotient,
                  B = k.remainder,
                  R = w.date.days + E + TotalTimeDuration(B, "day");
                w = CombineDateAndTimeDuration(
                  {
                    years: 0,
                    months: 0,
                    weeks: 0,
                    days: (R = RoundNumberToIncrement(R, u, s)),
                  },
                  te.ZERO,
                );
              } else
                w = CombineDateAndTimeDuration(
                  { years: 0, months: 0, weeks: 0, days: 0 },
                  RoundTimeDuration(w.time, u, l, s),
                );
              return TemporalDurationFromInternal(w, r);
            },
          },
          {
            key: "total",
            value: function total(e) {
              if ((CheckReceiver(this, IsTemporalDuration), void 0 === e))
                throw new TypeError("options argument is required");
              var n =
                  "string" == typeof e
                    ? CreateOnePropObject("unit", e)
                    : GetOptionsObject(e),
                r = GetTemporalRelativeToOption(n),
                a = r.plainRelativeTo,
                o = r.zonedRelativeTo,
                i = GetTemporalUnitValuedOption(n, "unit", "datetime", We);
              if (o) {
                var u = ToInternalDurationRecord(this),
                  s = GetSlot(o, _),
                  l = GetSlot(o, T),
                  c = GetSlot(o, v);
                return (function DifferenceZonedDateTimeWithTotal(
                  e,
                  t,
                  n,
                  r,
                  a,
                ) {
                  return "time" === TemporalUnitCategory(a)
                    ? TotalTimeDuration(te.fromEpochNsDiff(t, e), a)
                    : TotalRelativeDuration(
                        DifferenceZonedDateTime(e, t, n, r, a),
                        t,
                        GetISODateTimeFor(n, e),
                        n,
                        r,
                        a,
                      );
                })(c, AddZonedDateTime(c, s, l, u), s, l, i);
              }
              if (a) {
                var d = ToInternalDurationRecordWith24HourDays(this),
                  m = AddTime(
                    {
                      deltaDays: 0,
                      hour: 0,
                      minute: 0,
                      second: 0,
                      millisecond: 0,
                      microsecond: 0,
                      nanosecond: 0,
                    },
                    d.time,
                  ),
                  h = GetSlot(a, D),
                  f = GetSlot(a, T),
                  p = CalendarDateAdd(
                    f,
                    h,
                    AdjustDateDurationRecord(d.date, m.deltaDays),
                    "constrain",
                  );
                return (function DifferencePlainDateTimeWithTotal(e, n, r, a) {
                  if (0 == CompareISODateTime(e, n)) return 0;
                  (RejectDateTimeRange(e), RejectDateTimeRange(n));
                  var o = DifferenceISODateTime(e, n, r, a);
                  return "nanosecond" === a
                    ? t.toNumber(o.time.totalNs)
                    : TotalRelativeDuration(
                        o,
                        GetUTCEpochNanoseconds(n),
                        e,
                        null,
                        r,
                        a,
                      );
                })(
                  CombineISODateAndTimeRecord(h, {
                    deltaDays: 0,
                    hour: 0,
                    minute: 0,
                    second: 0,
                    millisecond: 0,
                    microsecond: 0,
                    nanosecond: 0,
                  }),
                  CombineISODateAndTimeRecord(p, m),
                  f,
                  i,
                );
              }
              var g = DefaultTemporalLargestUnit(this);
              if (IsCalendarUnit(g))
                throw new RangeError(
                  "a starting point is required for ".concat(g, "s total"),
                );
              if (IsCalendarUnit(i))
                throw new RangeError(
                  "a starting point is required for ".concat(i, "s total"),
                );
              return TotalTimeDuration(
                ToInternalDurationRecordWith24HourDays(this).time,
                i,
              );
            },
          },
          {
            key: "toString",
            value: function toString() {
              var e =
                arguments.length > 0 && void 0 !== arguments[0]
                  ? arguments[0]
                  : void 0;
              CheckReceiver(this, IsTemporalDuration);
              var t = GetOptionsObject(e),
                n = GetTemporalFractionalSecondDigitsOption(t),
                r = GetRoundingModeOption(t, "trunc"),
                a = GetTemporalUnitValuedOption(
                  t,
                  "smallestUnit",
                  "time",
                  void 0,
                );
              if ("hour" === a || "minute" === a)
                throw new RangeError(
                  'smallestUnit must be a time unit other than "hours" or "minutes"',
                );
              var o = ToSecondsStringPrecisionRecord(a, n),
                i = o.precision,
                u = o.unit,
                s = o.increment;
              if ("nanosecond" === u && 1 === s)
                return TemporalDurationToString(this, i);
              var l = DefaultTemporalLargestUnit(this),
                c = ToInternalDurationRecord(this),
                d = RoundTimeDuration(c.time, s, u, r);
              return TemporalDurationToString(
                TemporalDurationFromInternal(
                  (c = CombineDateAndTimeDuration(c.date, d)),
                  LargerOfTwoTemporalUnits(l, "second"),
                ),
                i,
              );
            },
          },
          {
            key: "toJSON",
            value: function toJSON() {
              return (
                CheckReceiver(this, IsTemporalDuration),
                TemporalDurationToString(this, "auto")
              );
            },
          },
          {
            key: "toLocaleString",
            value: function toLocaleString() {
              var e =
                  arguments.length > 0 && void 0 !== arguments[0]
                    ? arguments[0]
                    : void 0,
                t =
                  arguments.length > 1 && void 0 !== arguments[1]
                    ? arguments[1]
                    : void 0;
              if (
                (CheckReceiver(this, IsTemporalDuration),
                "function" == typeof Intl.DurationFormat)
              ) {
                var n = new Intl.DurationFormat(e, t);
                return ModifiedIntlDurationFormatPrototypeFormat.call(n, this);
              }
              return (
                console.warn(
                  "Temporal.Duration.prototype.toLocaleString() requires Intl.DurationFormat.",
                ),
                TemporalDurationToString(this, "auto")
              );
            },
          },
          {
            key: "valueOf",
            value: function valueOf() {
              ValueOfThrows("Duration");
            },
          },
        ],
        [
          {
            key: "from",
            value: function from(e) {
              return ToTemporalDuration(e);
            },
          },
          {
            key: "compare",
            value: function compare(e, n) {
              var r =
                  arguments.length > 2 && void 0 !== arguments[2]
                    ? arguments[2]
                    : void 0,
                a = ToTemporalDuration(e),
                o = ToTemporalDuration(n),
                i = GetTemporalRelativeToOption(GetOptionsObject(r)),
                u = i.plainRelativeTo,
                s = i.zonedRelativeTo;
              if (
                GetSlot(a, O) === GetSlot(o, O) &&
                GetSlot(a, b) === GetSlot(o, b) &&
                GetSlot(a, w) === GetSlot(o, w) &&
                GetSlot(a, k) === GetSlot(o, k) &&
                GetSlot(a, E) === GetSlot(o, E) &&
                GetSlot(a, B) === GetSlot(o, B) &&
                GetSlot(a, R) === GetSlot(o, R) &&
                GetSlot(a, G) === GetSlot(o, G) &&
                GetSlot(a, M) === GetSlot(o, M) &&
                GetSlot(a, A) === GetSlot(o, A)
              )
                return 0;
              var l = DefaultTemporalLargestUnit(a),
                c = DefaultTemporalLargestUnit(o),
                d = ToInternalDurationRecord(a),
                m = ToInternalDurationRecord(o);
              if (
                s &&
                ("date" === TemporalUnitCategory(l) ||
                  "date" === TemporalUnitCategory(c))
              ) {
                var h = GetSlot(s, _),
                  f = GetSlot(s, T),
                  p = GetSlot(s, v),
                  D = AddZonedDateTime(p, h, f, d),
                  g = AddZonedDateTime(p, h, f, m);
                return ComparisonResult(t.toNumber(t.subtract(D, g)));
              }
              var y = d.date.days,
                S = m.date.days;
              if (IsCalendarUnit(l) || IsCalendarUnit(c)) {
                if (!u)
                  throw new RangeError(
                    "A starting point is required for years, months, or weeks comparison",
                  );
                ((y = DateDurationDays(d.date, u)),
                  (S = DateDurationDays(m.date, u)));
              }
              var I = d.time.add24HourDays(y),
                C = m.time.add24HourDays(S);
              return I.cmp(C);
            },
          },
        ],
      ),
      Duration
    );
  })();
  MakeIntrinsicClass($t, "Temporal.Duration");
  var Vt = (function () {
    function PlainMonthDay(e, t) {
      var n =
          arguments.length > 2 && void 0 !== arguments[2]
            ? arguments[2]
            : "iso8601",
        r =
          arguments.length > 3 && void 0 !== arguments[3] ? arguments[3] : 1972;
      _classCallCheck(this, PlainMonthDay);
      var a = ToIntegerWithTruncation(e),
        o = ToIntegerWithTruncation(t),
        i = CanonicalizeCalendar(void 0 === n ? "iso8601" : RequireString(n)),
        u = ToIntegerWithTruncation(r);
      (RejectISODate(u, a, o),
        CreateTemporalMonthDaySlots(this, { year: u, month: a, day: o }, i));
    }
    return (
      _createClass(
        PlainMonthDay,
        [
          {
            key: "monthCode",
            get: function get() {
              return getCalendarProperty$2(this, "monthCode");
            },
          },
          {
            key: "day",
            get: function get() {
              return getCalendarProperty$2(this, "day");
            },
          },
          {
            key: "calendarId",
            get: function get() {
              return (
                CheckReceiver(this, IsTemporalMonthDay),
                GetSlot(this, T)
              );
            },
          },
          {
            key: "with",
            value: function _with(e) {
              var t =
                arguments.length > 1 && void 0 !== arguments[1]
                  ? arguments[1]
                  : void 0;
              if ((CheckReceiver(this, IsTemporalMonthDay), !IsObject(e)))
                throw new TypeError("invalid argument");
              RejectTemporalLikeObject(e);
              var n = GetSlot(this, T),
                r = ISODateToFields(n, GetSlot(this, D), "month-day");
              return CreateTemporalMonthDay(
                CalendarMonthDayFromFields(
                  n,
                  (r = CalendarMergeFields(
                    n,
                    r,
                    PrepareCalendarFields(
                      n,
                      e,
                      ["year", "month", "monthCode", "day"],
                      [],
                      "partial",
                    ),
                  )),
                  GetTemporalOverflowOption(GetOptionsObject(t)),
                ),
                n,
              );
            },
          },
          {
            key: "equals",
            value: function equals(e) {
              CheckReceiver(this, IsTemporalMonthDay);
              var t = ToTemporalMonthDay(e);
              return (
                0 === CompareISODate(GetSlot(this, D), GetSlot(t, D)) &&
                CalendarEquals(GetSlot(this, T), GetSlot(t, T))
              );
            },
          },
          {
            key: "toString",
            value: function toString() {
              var e =
                arguments.length > 0 && void 0 !== arguments[0]
                  ? arguments[0]
                  : void 0;
              return (
                CheckReceiver(this, IsTemporalMonthDay),
                TemporalMonthDayToString(
                  this,
                  GetTemporalShowCalendarNameOption(GetOptionsObject(e)),
                )
              );
            },
          },
          {
            key: "toJSON",
            value: function toJSON() {
              return (
                CheckReceiver(this, IsTemporalMonthDay),
                TemporalMonthDayToString(this)
              );
            },
          },
          {
            key: "toLocaleString",
            value: function toLocaleString() {
              var e =
                  arguments.length > 0 && void 0 !== arguments[0]
                    ? arguments[0]
                    : void 0,
                t =
                  arguments.length > 1 && void 0 !== arguments[1]
                    ? arguments[1]
                    : void 0;
              return (
                CheckReceiver(this, IsTemporalMonthDay),
                new Lt(e, t).format(this)
              );
            },
          },
          {
            key: "valueOf",
            value: function valueOf() {
              ValueOfThrows("PlainMonthDay");
            },
          },
          {
            key: "toPlainDate",
            value: function toPlainDate(e) {
              if ((CheckReceiver(this, IsTemporalMonthDay), !IsObject(e)))
                throw new TypeError("argument should be an object");
              var t = GetSlot(this, T);
              return CreateTemporalDate(
                CalendarDateFromFields(
                  t,
                  CalendarMergeFields(
                    t,
                    ISODateToFields(t, GetSlot(this, D), "month-day"),
                    PrepareCalendarFields(t, e, ["year"], [], []),
                  ),
                  "constrain",
                ),
                t,
              );
            },
          },
        ],
        [
          {
            key: "from",
            value: function from(e) {
              return ToTemporalMonthDay(
                e,
                arguments.length > 1 && void 0 !== arguments[1]
                  ? arguments[1]
                  : void 0,
              );
            },
          },
        ],
      ),
      PlainMonthDay
    );
  })();
  function getCalendarProperty$2(e, t) {
    CheckReceiver(e, IsTemporalMonthDay);
    var n = GetSlot(e, D);
    return calendarImplForObj(e).isoToDate(n, _defineProperty({}, t, !0))[t];
  }
  function SystemDateTime(e) {
    return GetISODateTimeFor(e, Ve());
  }
  MakeIntrinsicClass(Vt, "Temporal.PlainMonthDay");
  var Kt = _defineProperty(
    {
      instant: function instant() {
        return CreateTemporalInstant(Ve());
      },
      plainDateTimeISO: function plainDateTimeISO() {
        return CreateTemporalDateTime(
          SystemDateTime(
            ToTemporalTimeZoneIdentifier(
              arguments.length > 0 && void 0 !== arguments[0]
                ? arguments[0]
                : DefaultTimeZone(),
            ),
          ),
          "iso8601",
        );
      },
      plainDateISO: function plainDateISO() {
        return CreateTemporalDate(
          SystemDateTime(
            ToTemporalTimeZoneIdentifier(
              arguments.length > 0 && void 0 !== arguments[0]
                ? arguments[0]
                : DefaultTimeZone(),
            ),
          ).isoDate,
          "iso8601",
        );
      },
      plainTimeISO: function plainTimeISO() {
        return CreateTemporalTime(
          SystemDateTime(
            ToTemporalTimeZoneIdentifier(
              arguments.length > 0 && void 0 !== arguments[0]
                ? arguments[0]
                : DefaultTimeZone(),
            ),
          ).time,
        );
      },
      timeZoneId: function timeZoneId() {
        return DefaultTimeZone();
      },
      zonedDateTimeISO: function zonedDateTimeISO() {
        var e = ToTemporalTimeZoneIdentifier(
          arguments.length > 0 && void 0 !== arguments[0]
            ? arguments[0]
            : DefaultTimeZone(),
        );
        return CreateTemporalZonedDateTime(Ve(), e, "iso8601");
      },
    },
    Symbol.toStringTag,
    "Temporal.Now",
  );
  Object.defineProperty(Kt, Symbol.toStringTag, {
    value: "Temporal.Now",
    writable: !1,
    enumerable: !1,
    configurable: !0,
  });
  var Xt = (function () {
    function PlainTime() {
      var e =
          arguments.length > 0 && void 0 !== arguments[0] ? arguments[0] : 0,
        t = arguments.length > 1 && void 0 !== arguments[1] ? arguments[1] : 0,
        n = arguments.length > 2 && void 0 !== arguments[2] ? arguments[2] : 0,
        r = arguments.length > 3 && void 0 !== arguments[3] ? arguments[3] : 0,
        a = arguments.length > 4 && void 0 !== arguments[4] ? arguments[4] : 0,
        o = arguments.length > 5 && void 0 !== arguments[5] ? arguments[5] : 0;
      _classCallCheck(this, PlainTime);
      var i = void 0 === e ? 0 : ToIntegerWithTruncation(e),
        u = void 0 === t ? 0 : ToIntegerWithTruncation(t),
        s = void 0 === n ? 0 : ToIntegerWithTruncation(n),
        l = void 0 === r ? 0 : ToIntegerWithTruncation(r),
        c = void 0 === a ? 0 : ToIntegerWithTruncation(a),
        d = void 0 === o ? 0 : ToIntegerWithTruncation(o);
      (RejectTime(i, u, s, l, c, d),
        CreateTemporalTimeSlots(this, {
          hour: i,
          minute: u,
          second: s,
          millisecond: l,
          microsecond: c,
          nanosecond: d,
        }));
    }
    return (
      _createClass(
        PlainTime,
        [
          {
            key: "hour",
            get: function get() {
              return (
                CheckReceiver(this, IsTemporalTime),
                GetSlot(this, y).hour
              );
            },
          },
          {
            key: "minute",
            get: function get() {
              return (
                CheckReceiver(this, IsTemporalTime),
                GetSlot(this, y).minute
              );
            },
          },
          {
            key: "second",
            get: function get() {
              return (
                CheckReceiver(this, IsTemporalTime),
                GetSlot(this, y).second
              );
            },
          },
          {
            key: "millisecond",
            get: function get() {
              return (
                CheckReceiver(this, IsTemporalTime),
                GetSlot(this, y).millisecond
              );
            },
          },
          {
            key: "microsecond",
            get: function get() {
              return (
                CheckReceiver(this, IsTemporalTime),
                GetSlot(this, y).microsecond
              );
            },
          },
          {
            key: "nanosecond",
            get: function get() {
              return (
                CheckReceiver(this, IsTemporalTime),
                GetSlot(this, y).nanosecond
              );
            },
          },
          {
            key: "with",
            value: function _with(e) {
              var t =
                arguments.length > 1 && void 0 !== arguments[1]
                  ? arguments[1]
                  : void 0;
              if ((CheckReceiver(this, IsTemporalTime), !IsObject(e)))
                throw new TypeError("invalid argument");
              RejectTemporalLikeObject(e);
              var n = ToTemporalTimeRecord(e, "partial"),
                r = ToTemporalTimeRecord(this),
                a = Object.assign(r, n),
                o = a.hour,
                i = a.minute,
                u = a.second,
                s = a.millisecond,
                l = a.microsecond,
                c = a.nanosecond,
                d = RegulateTime(
                  o,
                  i,
                  u,
                  s,
                  l,
                  c,
                  GetTemporalOverflowOption(GetOptionsObject(t)),
                );
              return new PlainTime(
                (o = d.hour),
                (i = d.minute),
                (u = d.second),
                (s = d.millisecond),
                (l = d.microsecond),
                (c = d.nanosecond),
              );
            },
          },
          {
            key: "add",
            value: function add(e) {
              return (
                CheckReceiver(this, IsTemporalTime),
                AddDurationToTime("add", this, e)
              );
            },
          },
          {
            key: "subtract",
            value: function subtract(e) {
              return (
                CheckReceiver(this, IsTemporalTime),
                AddDurationToTime("subtract", this, e)
              );
            },
          },
          {
            key: "until",
            value: function until(e) {
              var t =
                arguments.length > 1 && void 0 !== arguments[1]
                  ? arguments[1]
                  : void 0;
              return (
                CheckReceiver(this, IsTemporalTime),
                DifferenceTemporalPlainTime("until", this, e, t)
              );
            },
          },
          {
            key: "since",
            value: function since(e) {
              var t =
                arguments.length > 1 && void 0 !== arguments[1]
                  ? arguments[1]
                  : void 0;
              return (
                CheckReceiver(this, IsTemporalTime),
                DifferenceTemporalPlainTime("since", this, e, t)
              );
            },
          },
          {
            key: "round",
            value: function round(e) {
              if ((CheckReceiver(this, IsTemporalTime), void 0 === e))
                throw new TypeError("options parameter is required");
              var t =
                  "string" == typeof e
                    ? CreateOnePropObject("smallestUnit", e)
                    : GetOptionsObject(e),
                n = GetTemporalRoundingIncrementOption(t),
                r = GetRoundingModeOption(t, "halfExpand"),
                a = GetTemporalUnitValuedOption(t, "smallestUnit", "time", We);
              return (
                ValidateTemporalRoundingIncrement(
                  n,
                  {
                    hour: 24,
                    minute: 60,
                    second: 60,
                    millisecond: 1e3,
                    microsecond: 1e3,
                    nanosecond: 1e3,
                  }[a],
                  !1,
                ),
                CreateTemporalTime(RoundTime(GetSlot(this, y), n, a, r))
              );
            },
          },
          {
            key: "equals",
            value: function equals(e) {
              CheckReceiver(this, IsTemporalTime);
              var t = ToTemporalTime(e);
              return 0 === CompareTimeRecord(GetSlot(this, y), GetSlot(t, y));
            },
          },
          {
            key: "toString",
            value: function toString() {
              var e =
                arguments.length > 0 && void 0 !== arguments[0]
                  ? arguments[0]
                  : void 0;
              CheckReceiver(this, IsTemporalTime);
              var t = GetOptionsObject(e),
                n = GetTemporalFractionalSecondDigitsOption(t),
                r = GetRoundingModeOption(t, "trunc"),
                a = GetTemporalUnitValuedOption(
                  t,
                  "smallestUnit",
                  "time",
                  void 0,
                );
              if ("hour" === a)
                throw new RangeError(
                  'smallestUnit must be a time unit other than "hour"',
                );
              var o = ToSecondsStringPrecisionRecord(a, n),
                i = o.precision,
                u = o.unit,
                s = o.increment;
              return TimeRecordToString(
                RoundTime(GetSlot(this, y), s, u, r),
                i,
              );
            },
          },
          {
            key: "toJSON",
            value: function toJSON() {
              return (
                CheckReceiver(this, IsTemporalTime),
                TimeRecordToString(GetSlot(this, y), "auto")
              );
            },
          },
          {
            key: "toLocaleString",
            value: function toLocaleString() {
              var e =
                  arguments.length > 0 && void 0 !== arguments[0]
                    ? arguments[0]
                    : void 0,
                t =
                  arguments.length > 1 && void 0 !== arguments[1]
                    ? arguments[1]
                    : void 0;
              return (
                CheckReceiver(this, IsTemporalTime),
                new Lt(e, t).format(this)
              );
            },
          },
          {
            key: "valueOf",
            value: function valueOf() {
              ValueOfThrows("PlainTime");
            },
          },
        ],
        [
          {
            key: "from",
            value: function from(e) {
              return ToTemporalTime(
                e,
                arguments.length > 1 && void 0 !== arguments[1]
                  ? arguments[1]
                  : void 0,
              );
            },
          },
          {
            key: "compare",
            value: function compare(e, t) {
              var n = ToTemporalTime(e),
                r = ToTemporalTime(t);
              return CompareTimeRecord(GetSlot(n, y), GetSlot(r, y));
            },
          },
        ],
      ),
      PlainTime
    );
  })();
  MakeIntrinsicClass(Xt, "Temporal.PlainTime");
  var Qt = (function () {
    function PlainYearMonth(e, t) {
      var n =
          arguments.length > 2 && void 0 !== arguments[2]
            ? arguments[2]
            : "iso8601",
        r = arguments.length > 3 && void 0 !== arguments[3] ? arguments[3] : 1;
      _classCallCheck(this, PlainYearMonth);
      var a = ToIntegerWithTruncation(e),
        o = ToIntegerWithTruncation(t),
        i = CanonicalizeCalendar(void 0 === n ? "iso8601" : RequireString(n)),
        u = ToIntegerWithTruncation(r);
      (RejectISODate(a, o, u),
        CreateTemporalYearMonthSlots(this, { year: a, month: o, day: u }, i));
    }
    return (
      _createClass(
        PlainYearMonth,
        [
          {
            key: "year",
            get: function get() {
              return getCalendarProperty$1(this, "year");
            },
          },
          {
            key: "month",
            get: function get() {
              return getCalendarProperty$1(this, "month");
            },
          },
          {
            key: "monthCode",
            get: function get() {
              return getCalendarProperty$1(this, "monthCode");
            },
          },
          {
            key: "calendarId",
            get: function get() {
              return (
                CheckReceiver(this, IsTemporalYearMonth),
                GetSlot(this, T)
              );
            },
          },
          {
            key: "era",
            get: function get() {
              return getCalendarProperty$1(this, "era");
            },
          },
          {
            key: "eraYear",
            get: function get() {
              return getCalendarProperty$1(this, "eraYear");
            },
          },
          {
            key: "daysInMonth",
            get: function get() {
              return getCalendarProperty$1(this, "daysInMonth");
            },
          },
          {
            key: "daysInYear",
            get: function get() {
              return getCalendarProperty$1(this, "daysInYear");
            },
          },
          {
            key: "monthsInYear",
            get: function get() {
              return getCalendarProperty$1(this, "monthsInYear");
            },
          },
          {
            key: "inLeapYear",
            get: function get() {
              return getCalendarProperty$1(this, "inLeapYear");
            },
          },
          {
            key: "with",
            value: function _with(e) {
              var t =
                arguments.length > 1 && void 0 !== arguments[1]
                  ? arguments[1]
                  : void 0;
              if ((CheckReceiver(this, IsTemporalYearMonth), !IsObject(e)))
                throw new TypeError("invalid argument");
              RejectTemporalLikeObject(e);
              var n = GetSlot(this, T),
                r = ISODateToFields(n, GetSlot(this, D), "year-month");
              return CreateTemporalYearMonth(
                CalendarYearMonthFromFields(
                  n,
                  (r = CalendarMergeFields(
                    n,
                    r,
                    PrepareCalendarFields(
                      n,
                      e,
                      ["year", "month", "monthCode"],
                      [],
                      "partial",
                    ),
                  )),
                  GetTemporalOverflowOption(GetOptionsObject(t)),
                ),
                n,
              );
            },
          },
          {
            key: "add",
            value: function add(e) {
              var t =
                arguments.length > 1 && void 0 !== arguments[1]
                  ? arguments[1]
                  : void 0;
              return (
                CheckReceiver(this, IsTemporalYearMonth),
                AddDurationToYearMonth("add", this, e, t)
              );
            },
          },
          {
            key: "subtract",
            value: function subtract(e) {
              var t =
                arguments.length > 1 && void 0 !== arguments[1]
                  ? arguments[1]
                  : void 0;
              return (
                CheckReceiver(this, IsTemporalYearMonth),
                AddDurationToYearMonth("subtract", this, e, t)
              );
            },
          },
          {
            key: "until",
            value: function until(e) {
              var t =
                arguments.length > 1 && void 0 !== arguments[1]
                  ? arguments[1]
                  : void 0;
              return (
                CheckReceiver(this, IsTemporalYearMonth),
                DifferenceTemporalPlainYearMonth("until", this, e, t)
              );
            },
          },
          {
            key: "since",
            value: function since(e) {
              var t =
                arguments.length > 1 && void 0 !== arguments[1]
                  ? arguments[1]
                  : void 0;
              return (
                CheckReceiver(this, IsTemporalYearMonth),
                DifferenceTemporalPlainYearMonth("since", this, e, t)
              );
            },
          },
          {
            key: "equals",
            value: function equals(e) {
              CheckReceiver(this, IsTemporalYearMonth);
              var t = ToTemporalYearMonth(e);
              return (
                0 === CompareISODate(GetSlot(this, D), GetSlot(t, D)) &&
                CalendarEquals(GetSlot(this, T), GetSlot(t, T))
              );
            },
          },
          {
            key: "toString",
            value: function toString() {
              var e =
                arguments.length > 0 && void 0 !== arguments[0]
                  ? arguments[0]
                  : void 0;
              return (
                CheckReceiver(this, IsTemporalYearMonth),
                TemporalYearMonthToString(
                  this,
                  GetTemporalShowCalendarNameOption(GetOptionsObject(e)),
                )
              );
            },
          },
          {
            key: "toJSON",
            value: function toJSON() {
              return (
                CheckReceiver(this, IsTemporalYearMonth),
                TemporalYearMonthToString(this)
              );
            },
          },
          {
            key: "toLocaleString",
            value: function toLocaleString() {
              var e =
                  arguments.length > 0 && void 0 !== arguments[0]
                    ? arguments[0]
                    : void 0,
                t =
                  arguments.length > 1 && void 0 !== arguments[1]
                    ? arguments[1]
                    : void 0;
              return (
                CheckReceiver(this, IsTemporalYearMonth),
                new Lt(e, t).format(this)
              );
            },
          },
          {
            key: "valueOf",
            value: function valueOf() {
              ValueOfThrows("PlainYearMonth");
            },
          },
          {
            key: "toPlainDate",
            value: function toPlainDate(e) {
              if ((CheckReceiver(this, IsTemporalYearMonth), !IsObject(e)))
                throw new TypeError("argument should be an object");
              var t = GetSlot(this, T);
              return CreateTemporalDate(
                CalendarDateFromFields(
                  t,
                  CalendarMergeFields(
                    t,
                    ISODateToFields(t, GetSlot(this, D), "year-month"),
                    PrepareCalendarFields(t, e, ["day"], [], []),
                  ),
                  "constrain",
                ),
                t,
              );
            },
          },
        ],
        [
          {
            key: "from",
            value: function from(e) {
              return ToTemporalYearMonth(
                e,
                arguments.length > 1 && void 0 !== arguments[1]
                  ? arguments[1]
                  : void 0,
              );
            },
          },
          {
            key: "compare",
            value: function compare(e, t) {
              var n = ToTemporalYearMonth(e),
                r = ToTemporalYearMonth(t);
              return CompareISODate(GetSlot(n, D), GetSlot(r, D));
            },
          },
        ],
      ),
      PlainYearMonth
    );
  })();
  function getCalendarProperty$1(e, t) {
    CheckReceiver(e, IsTemporalYearMonth);
    var n = GetSlot(e, D);
    return calendarImplForObj(e).isoToDate(n, _defineProperty({}, t, !0))[t];
  }
  MakeIntrinsicClass(Qt, "Temporal.PlainYearMonth");
  var en = Lt.prototype.resolvedOptions,
    tn = (function () {
      function ZonedDateTime(e, t) {
        var n =
          arguments.length > 2 && void 0 !== arguments[2]
            ? arguments[2]
            : "iso8601";
        if ((_classCallCheck(this, ZonedDateTime), arguments.length < 1))
          throw new TypeError("missing argument: epochNanoseconds is required");
        var r = ToBigInt(e),
          a = RequireString(t),
          o = ParseTimeZoneIdentifier(a),
          i = o.tzName,
          u = o.offsetMinutes;
        if (void 0 === u) {
          var s = GetAvailableNamedTimeZoneIdentifier(i);
          if (!s) throw new RangeError("unknown time zone ".concat(i));
          a = s.identifier;
        } else a = FormatOffsetTimeZoneIdentifier(u);
        CreateTemporalZonedDateTimeSlots(
          this,
          r,
          a,
          CanonicalizeCalendar(void 0 === n ? "iso8601" : RequireString(n)),
        );
      }
      return (
        _createClass(
          ZonedDateTime,
          [
            {
              key: "calendarId",
              get: function get() {
                return (
                  CheckReceiver(this, IsTemporalZonedDateTime),
                  GetSlot(this, T)
                );
              },
            },
            {
              key: "timeZoneId",
              get: function get() {
                return (
                  CheckReceiver(this, IsTemporalZonedDateTime),
                  GetSlot(this, _)
                );
              },
            },
            {
              key: "year",
              get: function get() {
                return getCalendarProperty(this, "year");
              },
            },
            {
              key: "month",
              get: function get() {
                return getCalendarProperty(this, "month");
              },
            },
            {
              key: "monthCode",
              get: function get() {
                return getCalendarProperty(this, "monthCode");
              },
            },
            {
              key: "day",
              get: function get() {
                return getCalendarProperty(this, "day");
              },
            },
            {
              key: "hour",
              get: function get() {
                return getTimeProperty(this, "hour");
              },
            },
            {
              key: "minute",
              get: function get() {
                return getTimeProperty(this, "minute");
              },
            },
            {
              key: "second",
              get: function get() {
                return getTimeProperty(this, "second");
              },
            },
            {
              key: "millisecond",
              get: function get() {
                return getTimeProperty(this, "millisecond");
              },
            },
            {
              key: "microsecond",
              get: function get() {
                return getTimeProperty(this, "microsecond");
              },
            },
            {
              key: "nanosecond",
              get: function get() {
                return getTimeProperty(this, "nanosecond");
              },
            },
            {
              key: "era",
              get: function get() {
                return getCalendarProperty(this, "era");
              },
            },
            {
              key: "eraYear",
              get: function get() {
                return getCalendarProperty(this, "eraYear");
              },
            },
            {
              key: "epochMilliseconds",
              get: function get() {
                return (
                  CheckReceiver(this, IsTemporalZonedDateTime),
                  epochNsToMs(GetSlot(this, v), "floor")
                );
              },
            },
            {
              key: "epochNanoseconds",
              get: function get() {
                return (
                  CheckReceiver(this, IsTemporalZonedDateTime),
                  ToBigIntExternal(GetSlot(this, v))
                );
              },
            },
            {
              key: "dayOfWeek",
              get: function get() {
                return getCalendarProperty(this, "dayOfWeek");
              },
            },
            {
              key: "dayOfYear",
              get: function get() {
                return getCalendarProperty(this, "dayOfYear");
              },
            },
            {
              key: "weekOfYear",
              get: function get() {
                var e;
                return null === (e = getCalendarProperty(this, "weekOfYear")) ||
                  void 0 === e
                  ? void 0
                  : e.week;
              },
            },
            {
              key: "yearOfWeek",
              get: function get() {
                var e;
                return null === (e = getCalendarProperty(this, "weekOfYear")) ||
                  void 0 === e
                  ? void 0
                  : e.year;
              },
            },
            {
              key: "hoursInDay",
              get: function get() {
                CheckReceiver(this, IsTemporalZonedDateTime);
                var e = GetSlot(this, _),
                  t = dateTime(this).isoDate,
                  n = BalanceISODate(t.year, t.month, t.day + 1),
                  r = GetStartOfDay(e, t),
                  a = GetStartOfDay(e, n);
                return TotalTimeDuration(te.fromEpochNsDiff(a, r), "hour");
              },
            },
            {
              key: "daysInWeek",
              get: function get() {
                return getCalendarProperty(this, "daysInWeek");
              },
            },
            {
              key: "daysInMonth",
              get: function get() {
                return getCalendarProperty(this, "daysInMonth");
              },
            },
            {
              key: "daysInYear",
              get: function get() {
                return getCalendarProperty(this, "daysInYear");
              },
            },
            {
              key: "monthsInYear",
              get: function get() {
                return getCalendarProperty(this, "monthsInYear");
              },
            },
            {
              key: "inLeapYear",
              get: function get() {
                return getCalendarProperty(this, "inLeapYear");
              },
            },
            {
              key: "offset",
              get: function get() {
                return (
                  CheckReceiver(this, IsTemporalZonedDateTime),
                  FormatUTCOffsetNanoseconds(
                    GetOffsetNanosecondsFor(GetSlot(this, _), GetSlot(this, v)),
                  )
                );
              },
            },
            {
              key: "offsetNanoseconds",
              get: function get() {
                return (
                  CheckReceiver(this, IsTemporalZonedDateTime),
                  GetOffsetNanosecondsFor(GetSlot(this, _), GetSlot(this, v))
                );
              },
            },
            {
              key: "with",
              value: function _with(e) {
                var t =
                  arguments.length > 1 && void 0 !== arguments[1]
                    ? arguments[1]
                    : void 0;
                if (
                  (CheckReceiver(this, IsTemporalZonedDateTime), !IsObject(e))
                )
                  throw new TypeError("invalid zoned-date-time-like");
                RejectTemporalLikeObject(e);
                var n = GetSlot(this, T),
                  r = GetSlot(this, _),
                  a = GetOffsetNanosecondsFor(r, GetSlot(this, v)),
                  o = dateTime(this),
                  i = _objectSpread2(
                    _objectSpread2(
                      _objectSpread2({}, ISODateToFields(n, o.isoDate)),
                      o.time,
                    ),
                    {},
                    { offset: FormatUTCOffsetNanoseconds(a) },
                  );
                i = CalendarMergeFields(
                  n,
                  i,
                  PrepareCalendarFields(
                    n,
                    e,
                    ["year", "month", "monthCode", "day"],
                    [
                      "hour",
                      "minute",
                      "second",
                      "millisecond",
                      "microsecond",
                      "nanosecond",
                      "offset",
                    ],
                    "partial",
                  ),
                );
                var u = GetOptionsObject(t),
                  s = GetTemporalDisambiguationOption(u),
                  l = GetTemporalOffsetOption(u, "prefer"),
                  c = InterpretTemporalDateTimeFields(
                    n,
                    i,
                    GetTemporalOverflowOption(u),
                  ),
                  d = ParseDateTimeUTCOffset(i.offset);
                return CreateTemporalZonedDateTime(
                  InterpretISODateTimeOffset(
                    c.isoDate,
                    c.time,
                    "option",
                    d,
                    r,
                    s,
                    l,
                    !1,
                  ),
                  r,
                  n,
                );
              },
            },
            {
              key: "withPlainTime",
              value: function withPlainTime() {
                var e =
                  arguments.length > 0 && void 0 !== arguments[0]
                    ? arguments[0]
                    : void 0;
                CheckReceiver(this, IsTemporalZonedDateTime);
                var t = GetSlot(this, _),
                  n = GetSlot(this, T),
                  r = dateTime(this).isoDate;
                return CreateTemporalZonedDateTime(
                  void 0 === e
                    ? GetStartOfDay(t, r)
                    : GetEpochNanosecondsFor(
                        t,
                        CombineISODateAndTimeRecord(
                          r,
                          GetSlot(ToTemporalTime(e), y),
                        ),
                        "compatible",
                      ),
                  t,
                  n,
                );
              },
            },
            {
              key: "withTimeZone",
              value: function withTimeZone(e) {
                CheckReceiver(this, IsTemporalZonedDateTime);
                var t = ToTemporalTimeZoneIdentifier(e);
                return CreateTemporalZonedDateTime(
                  GetSlot(this, v),
                  t,
                  GetSlot(this, T),
                );
              },
            },
            {
              key: "withCalendar",
              value: function withCalendar(e) {
                CheckReceiver(this, IsTemporalZonedDateTime);
                var t = ToTemporalCalendarIdentifier(e);
                return CreateTemporalZonedDateTime(
                  GetSlot(this, v),
                  GetSlot(this, _),
                  t,
                );
              },
            },
            {
              key: "add",
              value: function add(e) {
                var t =
                  arguments.length > 1 && void 0 !== arguments[1]
                    ? arguments[1]
                    : void 0;
                return (
                  CheckReceiver(this, IsTemporalZonedDateTime),
                  AddDurationToZonedDateTime("add", this, e, t)
                );
              },
            },
            {
              key: "subtract",
              value: function subtract(e) {
                var t =
                  arguments.length > 1 && void 0 !== arguments[1]
                    ? arguments[1]
                    : void 0;
                return (
                  CheckReceiver(this, IsTemporalZonedDateTime),
                  AddDurationToZonedDateTime("subtract", this, e, t)
                );
              },
            },
            {
              key: "until",
              value: function until(e) {
                var t =
                  arguments.length > 1 && void 0 !== arguments[1]
                    ? arguments[1]
                    : void 0;
                return (
                  CheckReceiver(this, IsTemporalZonedDateTime),
                  DifferenceTemporalZonedDateTime("until", this, e, t)
                );
              },
            },
            {
              key: "since",
              value: function since(e) {
                var t =
                  arguments.length > 1 && void 0 !== arguments[1]
                    ? arguments[1]
                    : void 0;
                return (
                  CheckReceiver(this, IsTemporalZonedDateTime),
                  DifferenceTemporalZonedDateTime("since", this, e, t)
                );
              },
            },
            {
              key: "round",
              value: function round(e) {
                if (
                  (CheckReceiver(this, IsTemporalZonedDateTime), void 0 === e)
                )
                  throw new TypeError("options parameter is required");
                var n =
                    "string" == typeof e
                      ? CreateOnePropObject("smallestUnit", e)
                      : GetOptionsObject(e),
                  r = GetTemporalRoundingIncrementOption(n),
                  a = GetRoundingModeOption(n, "halfExpand"),
                  o = GetTemporalUnitValuedOption(
                    n,
                    "smallestUnit",
                    "time",
                    We,
                    ["day"],
                  ),
                  i = {
                    day: 1,
                    hour: 24,
                    minute: 60,
                    second: 60,
                    millisecond: 1e3,
                    microsecond: 1e3,
                    nanosecond: 1e3,
                  }[o];
                if (
                  (ValidateTemporalRoundingIncrement(r, i, 1 === i),
                  "nanosecond" === o && 1 === r)
                )
                  return CreateTemporalZonedDateTime(
                    GetSlot(this, v),
                    GetSlot(this, _),
                    GetSlot(this, T),
                  );
                var u,
                  s = GetSlot(this, _),
                  l = GetSlot(this, v),
                  c = dateTime(this);
                if ("day" === o) {
                  var d = c.isoDate,
                    m = BalanceISODate(d.year, d.month, d.day + 1),
                    h = GetStartOfDay(s, d),
                    f = GetStartOfDay(s, m),
                    p = t.subtract(f, h);
                  u = te.fromEpochNsDiff(l, h).round(p, a).addToEpochNs(h);
                } else {
                  var D = RoundISODateTime(c, r, o, a),
                    g = GetOffsetNanosecondsFor(s, l);
                  u = InterpretISODateTimeOffset(
                    D.isoDate,
                    D.time,
                    "option",
                    g,
                    s,
                    "compatible",
                    "prefer",
                    !1,
                  );
                }
                return CreateTemporalZonedDateTime(u, s, GetSlot(this, T));
              },
            },
            {
              key: "equals",
              value: function equals(e) {
                CheckReceiver(this, IsTemporalZonedDateTime);
                var n = ToTemporalZonedDateTime(e),
                  r = GetSlot(this, v),
                  a = GetSlot(n, v);
                return (
                  !!t.equal(t.BigInt(r), t.BigInt(a)) &&
                  !!TimeZoneEquals(GetSlot(this, _), GetSlot(n, _)) &&
                  CalendarEquals(GetSlot(this, T), GetSlot(n, T))
                );
              },
            },
            {
              key: "toString",
              value: function toString() {
                var e =
                  arguments.length > 0 && void 0 !== arguments[0]
                    ? arguments[0]
                    : void 0;
                CheckReceiver(this, IsTemporalZonedDateTime);
                var t = GetOptionsObject(e),
                  n = GetTemporalShowCalendarNameOption(t),
                  r = GetTemporalFractionalSecondDigitsOption(t),
                  a = (function GetTemporalShowOffsetOption(e) {
                    return GetOption(e, "offset", ["auto", "never"], "auto");
                  })(t),
                  o = GetRoundingModeOption(t, "trunc"),
                  i = GetTemporalUnitValuedOption(
                    t,
                    "smallestUnit",
                    "time",
                    void 0,
                  );
                if ("hour" === i)
                  throw new RangeError(
                    'smallestUnit must be a time unit other than "hour"',
                  );
                var u = (function GetTemporalShowTimeZoneNameOption(e) {
                    return GetOption(
                      e,
                      "timeZoneName",
                      ["auto", "never", "critical"],
                      "auto",
                    );
                  })(t),
                  s = ToSecondsStringPrecisionRecord(i, r);
                return TemporalZonedDateTimeToString(
                  this,
                  s.precision,
                  n,
                  u,
                  a,
                  { unit: s.unit, increment: s.increment, roundingMode: o },
                );
              },
            },
            {
              key: "toLocaleString",
              value: function toLocaleString() {
                var e =
                    arguments.length > 0 && void 0 !== arguments[0]
                      ? arguments[0]
                      : void 0,
                  t =
                    arguments.length > 1 && void 0 !== arguments[1]
                      ? arguments[1]
                      : void 0;
                CheckReceiver(this, IsTemporalZonedDateTime);
                var n = GetOptionsObject(t),
                  r = Object.create(null);
                if (
                  ((function CopyDataProperties(e, t, n, r) {
                    if (null != t)
                      for (
                        var a = Reflect.ownKeys(t),
                          o = function _loop() {
                            var o = a[i];
                            if (
                              n.some(function (e) {
                                return Object.is(e, o);
                              })
                            )
                              return "continue";
                            if (
                              Object.prototype.propertyIsEnumerable.call(t, o)
                            ) {
                              var u = t[o];
                              if (
                                r &&
                                r.some(function (e) {
                                  return Object.is(e, u);
                                })
                              )
                                return "continue";
                              e[o] = u;
                            }
                          },
                          i = 0;
                        i < a.length;
                        i++
                      )
                        o();
                  })(r, n, ["timeZone"]),
                  void 0 !== n.timeZone)
                )
                  throw new TypeError(
                    "ZonedDateTime toLocaleString does not accept a timeZone option",
                  );
                if (
                  (void 0 === r.year &&
                    void 0 === r.month &&
                    void 0 === r.day &&
                    void 0 === r.era &&
                    void 0 === r.weekday &&
                    void 0 === r.dateStyle &&
                    void 0 === r.hour &&
                    void 0 === r.minute &&
                    void 0 === r.second &&
                    void 0 === r.fractionalSecondDigits &&
                    void 0 === r.timeStyle &&
                    void 0 === r.dayPeriod &&
                    void 0 === r.timeZoneName &&
                    (r.timeZoneName = "short"),
                  (r.timeZone = GetSlot(this, _)),
                  IsOffsetTimeZoneIdentifier(r.timeZone))
                )
                  throw new RangeError(
                    "toLocaleString does not currently support offset time zones",
                  );
                var a = new Lt(e, r),
                  o = en.call(a).calendar,
                  i = GetSlot(this, T);
                if ("iso8601" !== i && "iso8601" !== o && !CalendarEquals(o, i))
                  throw new RangeError(
                    "cannot format ZonedDateTime with calendar ".concat(i) +
                      " in locale with calendar ".concat(o),
                  );
                return a.format(CreateTemporalInstant(GetSlot(this, v)));
              },
            },
            {
              key: "toJSON",
              value: function toJSON() {
                return (
                  CheckReceiver(this, IsTemporalZonedDateTime),
                  TemporalZonedDateTimeToString(this, "auto")
                );
              },
            },
            {
              key: "valueOf",
              value: function valueOf() {
                ValueOfThrows("ZonedDateTime");
              },
            },
            {
              key: "startOfDay",
              value: function startOfDay() {
                CheckReceiver(this, IsTemporalZonedDateTime);
                var e = GetSlot(this, _);
                return CreateTemporalZonedDateTime(
                  GetStartOfDay(e, dateTime(this).isoDate),
                  e,
                  GetSlot(this, T),
                );
              },
            },
            {
              key: "getTimeZoneTransition",
              value: function getTimeZoneTransition(e) {
                CheckReceiver(this, IsTemporalZonedDateTime);
                var t = GetSlot(this, _);
                if (void 0 === e)
                  throw new TypeError("options parameter is required");
                var n = (function GetDirectionOption(e) {
                  return GetOption(e, "direction", ["next", "previous"], We);
                })(
                  "string" == typeof e
                    ? CreateOnePropObject("direction", e)
                    : GetOptionsObject(e),
                );
                if (void 0 === n)
                  throw new TypeError("direction option is required");
                if (IsOffsetTimeZoneIdentifier(t) || "UTC" === t) return null;
                var r = GetSlot(this, v),
                  a =
                    "next" === n
                      ? GetNamedTimeZoneNextTransition(t, r)
                      : GetNamedTimeZonePreviousTransition(t, r);
                return null === a
                  ? null
                  : CreateTemporalZonedDateTime(a, t, GetSlot(this, T));
              },
            },
            {
              key: "toInstant",
              value: function toInstant() {
                return (
                  CheckReceiver(this, IsTemporalZonedDateTime),
                  CreateTemporalInstant(GetSlot(this, v))
                );
              },
            },
            {
              key: "toPlainDate",
              value: function toPlainDate() {
                return (
                  CheckReceiver(this, IsTemporalZonedDateTime),
                  CreateTemporalDate(dateTime(this).isoDate, GetSlot(this, T))
                );
              },
            },
            {
              key: "toPlainTime",
              value: function toPlainTime() {
                return (
                  CheckReceiver(this, IsTemporalZonedDateTime),
                  CreateTemporalTime(dateTime(this).time)
                );
              },
            },
            {
              key: "toPlainDateTime",
              value: function toPlainDateTime() {
                return (
                  CheckReceiver(this, IsTemporalZonedDateTime),
                  CreateTemporalDateTime(dateTime(this), GetSlot(this, T))
                );
              },
            },
          ],
          [
            {
              key: "from",
              value: function from(e) {
                return ToTemporalZonedDateTime(
                  e,
                  arguments.length > 1 && void 0 !== arguments[1]
                    ? arguments[1]
                    : void 0,
                );
              },
            },
            {
              key: "compare",
              value: function compare(e, n) {
                var r = ToTemporalZonedDateTime(e),
                  a = ToTemporalZonedDateTime(n),
                  o = GetSlot(r, v),
                  i = GetSlot(a, v);
                return t.lessThan(t.BigInt(o), t.BigInt(i))
                  ? -1
                  : t.greaterThan(t.BigInt(o), t.BigInt(i))
                    ? 1
                    : 0;
              },
            },
          ],
        ),
        ZonedDateTime
      );
    })();
  function dateTime(e) {
    return GetISODateTimeFor(GetSlot(e, _), GetSlot(e, v));
  }
  function getCalendarProperty(e, t) {
    CheckReceiver(e, IsTemporalZonedDateTime);
    var n = dateTime(e).isoDate;
    return calendarImplForObj(e).isoToDate(n, _defineProperty({}, t, !0))[t];
  }
  function getTimeProperty(e, t) {
    return (CheckReceiver(e, IsTemporalZonedDateTime), dateTime(e).time[t]);
  }
  MakeIntrinsicClass(tn, "Temporal.ZonedDateTime");
  for (
    var nn = Object.freeze({
        __proto__: null,
        Duration: $t,
        Instant: Wt,
        Now: Kt,
        PlainDate: zt,
        PlainDateTime: qt,
        PlainMonthDay: Vt,
        PlainTime: Xt,
        PlainYearMonth: Qt,
        ZonedDateTime: tn,
      }),
      rn = (function () {
        function LegacyDateImpl() {
          _classCallCheck(this, LegacyDateImpl);
        }
        return (
          _createClass(LegacyDateImpl, [
            {
              key: "toTemporalInstant",
              value: function toTemporalInstant() {
                return CreateTemporalInstant(
                  epochMsToNs(Date.prototype.valueOf.call(this)),
                );
              },
            },
          ]),
          LegacyDateImpl
        );
      })().prototype.toTemporalInstant,
      an = 0,
      on = [Wt, zt, qt, $t, Vt, Xt, Qt, tn];
    an < on.length;
    an++
  ) {
    var un = on[an],
      sn = Object.getOwnPropertyDescriptor(un, "prototype");
    (sn.configurable || sn.enumerable || sn.writable) &&
      ((sn.configurable = !1),
      (sn.enumerable = !1),
      (sn.writable = !1),
      Object.defineProperty(un, "prototype", sn));
  }
  ((e.Intl = Ht), (e.Temporal = nn), (e.toTemporalInstant = rn));
});
//# sourceMappingURL=index.umd.js.map
