//! DynamoDB numbers: decimals of up to 38 significant digits, magnitude 1E-130 to below 1E+126.
//! No floating point is involved anywhere.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt::{self, Write as _};

use bigdecimal::num_bigint::BigInt;
use bigdecimal::{BigDecimal, ToPrimitive, Zero};

use crate::error::DynamoError;

/// The largest number of significant digits a DynamoDB number holds.
pub const MAX_DIGITS: u64 = 38;
/// The largest decimal exponent of a number's leading digit.
const MAX_MAGNITUDE: i64 = 125;
/// The smallest decimal exponent of a number's leading digit.
const MIN_MAGNITUDE: i64 = -130;

/// A DynamoDB number, always normalized (no leading or trailing zeros).
///
/// Each value has exactly one representation, so the derived equality is equality of values.
#[derive(Clone, PartialEq, Eq)]
pub struct Number(Repr);

/// How a number is held: inline when its significand fits an `i64` (counters, versions, prices),
/// as a big decimal otherwise.
#[derive(Clone, PartialEq, Eq)]
enum Repr {
    /// `unscaled × 10^exponent`, with no trailing zero in `unscaled`; zero is `0 × 10^0`.
    Small { unscaled: i64, exponent: i16 },
    /// A normalized big decimal whose significand does not fit an `i64`.
    Big(Box<BigDecimal>),
}

/// Why a text is not a DynamoDB number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NumberError {
    /// Not a decimal number at all (or empty).
    Syntax,
    /// Leading digit above 1E+125.
    Overflow,
    /// Leading digit below 1E-130.
    Underflow,
    /// More than 38 significant digits.
    Precision,
}

impl NumberError {
    /// The ValidationException DynamoDB answers for this text.
    pub fn to_error(&self, text: &str) -> DynamoError {
        DynamoError::validation(match self {
            NumberError::Syntax if text.is_empty() => "The parameter cannot be converted to a numeric value".to_owned(),
            NumberError::Syntax => format!("The parameter cannot be converted to a numeric value: {text}"),
            NumberError::Overflow => {
                "Number overflow. Attempting to store a number with magnitude larger than supported range".to_owned()
            }
            NumberError::Underflow => {
                "Number underflow. Attempting to store a number with magnitude smaller than supported range".to_owned()
            }
            NumberError::Precision => "Attempting to store more than 38 significant digits in a Number".to_owned(),
        })
    }
}

impl Number {
    /// Parses a number as DynamoDB reads the `N` of an attribute value.
    pub fn parse(text: &str) -> Result<Number, NumberError> {
        let bytes = text.as_bytes();
        let (negative, mut at) = match bytes.first() {
            Some(b'-') => (true, 1),
            Some(b'+') => (false, 1),
            _ => (false, 0),
        };
        // The digits from the first nonzero one to the last nonzero one, while there are no more
        // than 38 of them (which always fit a u128); beyond that the text is refused anyway.
        let mut significand: u128 = 0;
        let mut significant_len: i64 = 0;
        // Zeros after the last nonzero digit: trailing ones unless another nonzero digit follows.
        let mut trailing_zeros: i64 = 0;
        let mut fraction_len: i64 = 0;
        let mut seen_digit = false;
        let mut seen_point = false;
        while at < bytes.len() {
            match bytes[at] {
                c @ b'0'..=b'9' => {
                    seen_digit = true;
                    if seen_point {
                        fraction_len += 1;
                    }
                    if c != b'0' {
                        let shift = trailing_zeros + 1;
                        significant_len += shift;
                        if significant_len <= MAX_DIGITS as i64 {
                            significand = significand * 10u128.pow(shift as u32) + u128::from(c - b'0');
                        }
                        trailing_zeros = 0;
                    } else if significant_len > 0 {
                        trailing_zeros += 1;
                    }
                }
                b'.' if !seen_point => seen_point = true,
                b'e' | b'E' => break,
                _ => return Err(NumberError::Syntax),
            }
            at += 1;
        }
        if !seen_digit {
            return Err(NumberError::Syntax);
        }
        let mut exponent: i64 = 0;
        if at < bytes.len() {
            // bytes[at] is the exponent marker.
            at += 1;
            let exp_negative = match bytes.get(at) {
                Some(b'-') => {
                    at += 1;
                    true
                }
                Some(b'+') => {
                    at += 1;
                    false
                }
                _ => false,
            };
            if at >= bytes.len() {
                return Err(NumberError::Syntax);
            }
            for &c in &bytes[at..] {
                if !c.is_ascii_digit() {
                    return Err(NumberError::Syntax);
                }
                // Saturate: anything this large is out of range anyway.
                exponent = exponent.saturating_mul(10).saturating_add((c - b'0') as i64);
            }
            if exp_negative {
                exponent = -exponent;
            }
        }
        if significant_len == 0 {
            return Ok(Number::zero());
        }
        // value = significand * 10^(trailing_zeros - fraction_len + exponent)
        let scale_exp = trailing_zeros.saturating_sub(fraction_len).saturating_add(exponent);
        let magnitude = scale_exp.saturating_add(significant_len - 1);
        if magnitude > MAX_MAGNITUDE {
            return Err(NumberError::Overflow);
        }
        if magnitude < MIN_MAGNITUDE {
            return Err(NumberError::Underflow);
        }
        if significant_len as u64 > MAX_DIGITS {
            return Err(NumberError::Precision);
        }
        // At most 38 digits: below 10^38, which an i128 holds with its sign.
        let unscaled = significand as i128;
        Ok(Number::from_normalized(if negative { -unscaled } else { unscaled }, scale_exp))
    }

    /// Zero.
    pub fn zero() -> Number {
        Number(Repr::Small { unscaled: 0, exponent: 0 })
    }

    /// An integer.
    pub fn from_i64(value: i64) -> Number {
        Number::from_scaled_i64(value, 0)
    }

    /// `unscaled × 10^exponent`, normalized: the trailing zeros move into the exponent.
    #[inline]
    fn from_scaled_i64(mut unscaled: i64, mut exponent: i64) -> Number {
        while unscaled != 0 && unscaled % 10 == 0 {
            unscaled /= 10;
            exponent += 1;
        }
        Number::from_normalized(i128::from(unscaled), exponent)
    }

    /// `unscaled × 10^exponent` for an `unscaled` without trailing zeros: inline whenever it fits.
    #[inline]
    fn from_normalized(unscaled: i128, exponent: i64) -> Number {
        match (i64::try_from(unscaled), i16::try_from(exponent)) {
            (Ok(0), _) => Number::zero(),
            (Ok(unscaled), Ok(exponent)) => Number(Repr::Small { unscaled, exponent }),
            _ => Number::big(unscaled, exponent),
        }
    }

    /// `unscaled × 10^exponent` as a big decimal, kept apart so that the common path stays small.
    #[cold]
    fn big(unscaled: i128, exponent: i64) -> Number {
        Number(Repr::Big(Box::new(BigDecimal::new(BigInt::from(unscaled), -exponent))))
    }

    /// A big decimal's value, inline whenever its significand fits an `i64`.
    fn from_big(value: BigDecimal) -> Number {
        let value = value.normalized();
        let (unscaled, scale) = value.as_bigint_and_scale();
        match (unscaled.to_i64(), scale.checked_neg().and_then(|exponent| i16::try_from(exponent).ok())) {
            (Some(0), _) => Number::zero(),
            (Some(unscaled), Some(exponent)) => Number(Repr::Small { unscaled, exponent }),
            _ => Number(Repr::Big(Box::new(value))),
        }
    }

    /// The number as a big decimal, for the rare operations on numbers that are not inline.
    fn to_big(&self) -> Cow<'_, BigDecimal> {
        match &self.0 {
            Repr::Small { unscaled, exponent } => {
                Cow::Owned(BigDecimal::new(BigInt::from(*unscaled), -i64::from(*exponent)))
            }
            Repr::Big(value) => Cow::Borrowed(value),
        }
    }

    /// Refuses a result whose leading digit is at 10^`magnitude` and that has `digits`
    /// significant digits, when DynamoDB cannot store it.
    fn check_range(magnitude: i64, digits: u64) -> Result<(), DynamoError> {
        if magnitude > MAX_MAGNITUDE {
            return Err(NumberError::Overflow.to_error(""));
        }
        if magnitude < MIN_MAGNITUDE {
            return Err(NumberError::Underflow.to_error(""));
        }
        // A sum or difference too precise to keep is refused as an overflow, not as the
        // precision error a number read from a request gets (ScyllaDB's Alternator suite,
        // which runs against DynamoDB: `1e50 + 1`).
        if digits > MAX_DIGITS {
            return Err(NumberError::Overflow.to_error(""));
        }
        Ok(())
    }

    /// A big decimal result of arithmetic, with DynamoDB's range and precision errors.
    fn checked(value: BigDecimal) -> Result<Number, DynamoError> {
        let value = value.normalized();
        if value.is_zero() {
            return Ok(Number::zero());
        }
        Number::check_range(value.order_of_magnitude(), value.digits())?;
        Ok(Number::from_big(value))
    }

    /// `self + other`, or `self - other` when `negate_other`, exactly in an `i64`: for two inline
    /// numbers that line up on the lower exponent without overflow (counters, versions, prices).
    /// `None` leaves the operation to the big decimals.
    fn small_sum(&self, other: &Number, negate_other: bool) -> Option<Result<Number, DynamoError>> {
        let (Repr::Small { unscaled: a, exponent: ea }, Repr::Small { unscaled: b, exponent: eb }) =
            (&self.0, &other.0)
        else {
            return None;
        };
        let low = (*ea).min(*eb);
        let aligned = |unscaled: i64, exponent: i16| match exponent - low {
            0 => Some(unscaled),
            shift => unscaled.checked_mul(10i64.checked_pow(shift as u32)?),
        };
        let (a, b) = (aligned(*a, *ea)?, aligned(*b, *eb)?);
        let sum = if negate_other { a.checked_sub(b)? } else { a.checked_add(b)? };
        let sum = Number::from_scaled_i64(sum, i64::from(low));
        if sum.is_zero() {
            return Some(Ok(sum));
        }
        Some(Number::check_range(sum.magnitude(), sum.digit_count()).map(|()| sum))
    }

    /// The decimal exponent of the leading digit of a number other than zero.
    fn magnitude(&self) -> i64 {
        match &self.0 {
            Repr::Small { unscaled, exponent } => i64::from(*exponent) + i64::from(unscaled.unsigned_abs().ilog10()),
            Repr::Big(value) => value.order_of_magnitude(),
        }
    }

    /// `self + other`, with DynamoDB's range and precision errors.
    pub fn add(&self, other: &Number) -> Result<Number, DynamoError> {
        match self.small_sum(other, false) {
            Some(sum) => sum,
            None => Number::checked(self.to_big().as_ref() + other.to_big().as_ref()),
        }
    }

    /// `self - other`, with DynamoDB's range and precision errors.
    pub fn sub(&self, other: &Number) -> Result<Number, DynamoError> {
        match self.small_sum(other, true) {
            Some(difference) => difference,
            None => Number::checked(self.to_big().as_ref() - other.to_big().as_ref()),
        }
    }

    /// The number of significant digits.
    pub fn digit_count(&self) -> u64 {
        match &self.0 {
            Repr::Small { unscaled: 0, .. } => 1,
            Repr::Small { unscaled, .. } => u64::from(unscaled.unsigned_abs().ilog10()) + 1,
            Repr::Big(value) => value.digits(),
        }
    }

    /// True for zero.
    pub fn is_zero(&self) -> bool {
        matches!(self.0, Repr::Small { unscaled: 0, .. })
    }

    /// The size DynamoDB charges for the number: one byte per two significant digits, plus one.
    pub fn size_bytes(&self) -> usize {
        (self.digit_count() as usize).div_ceil(2) + 1
    }

    /// Compares two numbers by value.
    pub fn compare(&self, other: &Number) -> Ordering {
        let (Repr::Small { unscaled: a, exponent: ea }, Repr::Small { unscaled: b, exponent: eb }) =
            (&self.0, &other.0)
        else {
            return self.to_big().as_ref().cmp(other.to_big().as_ref());
        };
        // Different signs (or a zero) decide; so does, for one sign, the place of the leading digit.
        let by_sign = a.signum().cmp(&b.signum());
        if by_sign != Ordering::Equal || *a == 0 {
            return by_sign;
        }
        let by_magnitude = self.magnitude().cmp(&other.magnitude());
        if by_magnitude != Ordering::Equal {
            return if *a < 0 { by_magnitude.reverse() } else { by_magnitude };
        }
        // Same leading place: the exponents differ by less than 19, so both line up in an i128.
        let low = (*ea).min(*eb);
        let aligned = |unscaled: i64, exponent: i16| i128::from(unscaled) * 10i128.pow((exponent - low) as u32);
        aligned(*a, *ea).cmp(&aligned(*b, *eb))
    }
}

impl PartialOrd for Number {
    fn partial_cmp(&self, other: &Number) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Number {
    fn cmp(&self, other: &Number) -> Ordering {
        self.compare(other)
    }
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // DynamoDB answers numbers in plain notation, without exponent or superfluous zeros.
        let (unscaled, exponent) = match &self.0 {
            Repr::Small { unscaled, exponent } => (*unscaled, *exponent),
            Repr::Big(value) => return value.write_plain_string(f),
        };
        // Integers that fit an i64 (most numbers) are written as one.
        if let Some(integer) = u32::try_from(exponent).ok().and_then(|e| unscaled.checked_mul(10i64.checked_pow(e)?)) {
            return fmt::Display::fmt(&integer, f);
        }
        if unscaled < 0 {
            f.write_char('-')?;
        }
        let digits = unscaled.unsigned_abs();
        if exponent >= 0 {
            fmt::Display::fmt(&digits, f)?;
            return (0..exponent).try_for_each(|_| f.write_char('0'));
        }
        // A fraction: the digits below the point, zero-padded to the exponent's width.
        let width = exponent.unsigned_abs();
        let (integer, fraction) = match 10u64.checked_pow(u32::from(width)) {
            Some(scale) => (digits / scale, digits % scale),
            None => (0, digits),
        };
        write!(f, "{integer}.{fraction:0width$}", width = usize::from(width))
    }
}

impl fmt::Debug for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Number({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(text: &str) -> String {
        Number::parse(text).unwrap().to_string()
    }

    #[test]
    fn parse_normalizes_to_plain_notation() {
        assert_eq!(n("1"), "1");
        assert_eq!(n("01.50"), "1.5");
        assert_eq!(n("-0.000"), "0");
        assert_eq!(n("1E+2"), "100");
        assert_eq!(n("1.5e-3"), "0.0015");
        assert_eq!(n(".5"), "0.5");
        assert_eq!(n("5."), "5");
        assert_eq!(n("+7"), "7");
        assert_eq!(n("-12.340"), "-12.34");
    }

    proptest::proptest! {
        /// Integers are written through `i64` and everything else by the big decimal: both ways
        /// give the same plain text, with no exponent and no superfluous zeros.
        #[test]
        fn numbers_are_written_as_the_big_decimal_writes_them(
            unscaled in proptest::prelude::any::<i64>(),
            scale in -30i64..30,
        ) {
            let number = Number::checked(BigDecimal::new(BigInt::from(unscaled), scale)).unwrap();
            let mut plain = String::new();
            number.to_big().write_plain_string(&mut plain).unwrap();
            proptest::prop_assert_eq!(number.to_string(), plain);
        }
    }

    #[test]
    fn parse_rejects_garbage_and_out_of_range() {
        for bad in ["", "-", ".", "e5", "1e", "1e+", "abc", "1..2", "1 ", " 1", "NaN", "Infinity", "0x10"] {
            assert_eq!(Number::parse(bad), Err(NumberError::Syntax), "{bad:?}");
        }
        assert_eq!(Number::parse("1e126"), Err(NumberError::Overflow));
        assert!(Number::parse("9.9999999999999999999999999999999999999e125").is_ok());
        assert_eq!(Number::parse("1e-131"), Err(NumberError::Underflow));
        assert!(Number::parse("1e-130").is_ok());
        assert_eq!(Number::parse("123456789012345678901234567890123456789"), Err(NumberError::Precision));
        assert!(Number::parse("12345678901234567890123456789012345678").is_ok());
        assert!(Number::parse("1234567890123456789012345678901234567800000").is_ok());
        assert_eq!(Number::parse("1e99999999999999999999999"), Err(NumberError::Overflow));
    }

    #[test]
    fn arithmetic_is_exact_and_checked() {
        let a = Number::parse("0.1").unwrap();
        let b = Number::parse("0.2").unwrap();
        assert_eq!(a.add(&b).unwrap().to_string(), "0.3");
        assert_eq!(a.sub(&b).unwrap().to_string(), "-0.1");
        let big = Number::parse("99999999999999999999999999999999999999").unwrap();
        assert!(big.add(&Number::from_i64(1)).is_ok()); // 1E+38 has one significant digit
        let precise = Number::parse("1e30").unwrap();
        let tiny = Number::parse("1e-10").unwrap();
        assert_eq!(
            precise.add(&tiny).unwrap_err().message,
            "Number overflow. Attempting to store a number with magnitude larger than supported range"
        );
        let fifty = Number::parse("1e50").unwrap();
        for result in [fifty.add(&Number::from_i64(1)), fifty.sub(&Number::from_i64(1))] {
            assert!(result.unwrap_err().message.starts_with("Number overflow"));
        }
        let max = Number::parse("9e125").unwrap();
        assert!(max.add(&max).unwrap_err().message.starts_with("Number overflow"));
    }

    #[test]
    fn integer_arithmetic_agrees_with_decimal_arithmetic() {
        let cases = [
            ("1", "1"),
            ("10", "-10"),
            ("1200", "34"),
            ("-7", "7000000"),
            ("9223372036854775807", "1"), // i64::MAX + 1 leaves the integer path
            ("-9223372036854775808", "-1"),
            ("1e18", "1e18"),
            ("1e20", "5"), // beyond i64 before the sum
            ("2.5", "7"),
            ("0", "-0"),
        ];
        for (a, b) in cases {
            let (x, y) = (Number::parse(a).unwrap(), Number::parse(b).unwrap());
            let (wide_sum, wide_difference) =
                (x.to_big().as_ref() + y.to_big().as_ref(), x.to_big().as_ref() - y.to_big().as_ref());
            assert_eq!(*x.add(&y).unwrap().to_big(), wide_sum, "{a} + {b}");
            assert_eq!(*x.sub(&y).unwrap().to_big(), wide_difference, "{a} - {b}");
            // The result prints as a parsed number of the same value does.
            assert_eq!(x.add(&y).unwrap().to_string(), Number::parse(&wide_sum.to_string()).unwrap().to_string());
        }
        assert_eq!(Number::from_i64(0).to_string(), "0");
        assert_eq!(Number::from_i64(-1200).to_string(), "-1200");
        assert_eq!(Number::from_i64(-1200).digit_count(), 2);
        assert_eq!(Number::from_i64(i64::MIN).to_string(), "-9223372036854775808");
    }

    #[test]
    fn digit_counts_and_sizes_hold_on_both_sides_of_u64() {
        let digits = |t: &str| Number::parse(t).unwrap().digit_count();
        assert_eq!(digits("0"), 1);
        assert_eq!(digits("-7"), 1);
        assert_eq!(digits("1000"), 1);
        assert_eq!(digits("12.5"), 3);
        assert_eq!(digits("0.00123"), 3);
        assert_eq!(digits("18446744073709551615"), 20); // u64::MAX
        assert_eq!(digits("18446744073709551617"), 20);
        assert_eq!(digits("-99999999999999999999999999999999999999"), 38);
        assert_eq!(Number::parse("12345").unwrap().size_bytes(), 4);
        // The u64 path and the big-integer path read the same value.
        assert_eq!(n("-1234567890123456789.5"), "-1234567890123456789.5");
        assert_eq!(n("12345678901234567890123"), "12345678901234567890123");
        assert_eq!(
            Number::parse("9999999999999999999").unwrap().add(&Number::from_i64(1)).unwrap().to_string(),
            "10000000000000000000"
        );
    }

    #[test]
    fn numbers_order_by_value() {
        let mut v: Vec<Number> = ["10", "-1", "2.5", "0", "-10.5"].iter().map(|t| Number::parse(t).unwrap()).collect();
        v.sort();
        let s: Vec<String> = v.iter().map(|x| x.to_string()).collect();
        assert_eq!(s, ["-10.5", "-1", "0", "2.5", "10"]);
        assert_eq!(Number::parse("1.0").unwrap(), Number::parse("1").unwrap());
    }

    #[test]
    fn common_numbers_are_inline() {
        for text in ["1", "42", "-7", "1.5", "100", "0", "-0.001", "9223372036854775807", "-9223372036854775808"] {
            assert!(matches!(Number::parse(text).unwrap().0, Repr::Small { .. }), "{text}");
        }
        for text in ["9223372036854775808", "-9223372036854775809", "12345678901234567890123"] {
            assert!(matches!(Number::parse(text).unwrap().0, Repr::Big(_)), "{text}");
        }
        // A sum that leaves an i64 goes big, and one that comes back is inline again.
        let max = Number::from_i64(i64::MAX);
        let beyond = max.add(&Number::from_i64(1)).unwrap();
        assert!(matches!(beyond.0, Repr::Big(_)));
        assert_eq!(beyond.sub(&Number::from_i64(1)).unwrap(), max);
        assert!(matches!(beyond.sub(&Number::from_i64(1)).unwrap().0, Repr::Small { .. }));
    }

    /// The value DynamoDB reads from `text`, worked out apart from `Number::parse`: the grammar
    /// checked piece by piece, the value built as one big integer and a scale.
    fn reference(text: &str) -> Result<BigDecimal, NumberError> {
        let negative = text.starts_with('-');
        let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
        let (mantissa, exponent) = match unsigned.split_once(['e', 'E']) {
            Some((mantissa, exponent)) => (mantissa, Some(exponent)),
            None => (unsigned, None),
        };
        let (integer, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let all_digits = |s: &str| s.bytes().all(|c| c.is_ascii_digit());
        if !all_digits(integer) || !all_digits(fraction) || integer.len() + fraction.len() == 0 {
            return Err(NumberError::Syntax);
        }
        let exponent: i128 = match exponent {
            None => 0,
            Some(exponent) => {
                let digits = exponent.strip_prefix(['-', '+']).unwrap_or(exponent);
                if digits.is_empty() || !all_digits(digits) {
                    return Err(NumberError::Syntax);
                }
                let value: i128 = digits.parse().unwrap();
                if exponent.starts_with('-') { -value } else { value }
            }
        };
        let digits: BigInt = format!("{integer}{fraction}").parse().unwrap();
        let mantissa = BigDecimal::new(digits, fraction.len() as i64).normalized();
        if mantissa.is_zero() {
            return Ok(BigDecimal::zero());
        }
        let (unscaled, scale) = mantissa.as_bigint_and_scale();
        let digit_count = unscaled.magnitude().to_string().len() as i128;
        let magnitude = digit_count - 1 - i128::from(scale) + exponent;
        if magnitude > MAX_MAGNITUDE as i128 {
            return Err(NumberError::Overflow);
        }
        if magnitude < MIN_MAGNITUDE as i128 {
            return Err(NumberError::Underflow);
        }
        if digit_count > MAX_DIGITS as i128 {
            return Err(NumberError::Precision);
        }
        let unscaled = if negative { -unscaled.into_owned() } else { unscaled.into_owned() };
        Ok(BigDecimal::new(unscaled, scale - exponent as i64))
    }

    /// What DynamoDB makes of a sum or difference worth `exact`: the value or the error message.
    fn reference_result(exact: BigDecimal) -> Result<BigDecimal, String> {
        let exact = exact.normalized();
        if exact.is_zero() {
            return Ok(exact);
        }
        let (unscaled, scale) = exact.as_bigint_and_scale();
        let digit_count = unscaled.magnitude().to_string().len() as i64;
        let magnitude = digit_count - 1 - scale;
        let error = if magnitude > MAX_MAGNITUDE || digit_count > MAX_DIGITS as i64 {
            NumberError::Overflow
        } else if magnitude < MIN_MAGNITUDE {
            NumberError::Underflow
        } else {
            return Ok(exact);
        };
        Err(error.to_error("").message)
    }

    /// The plain text of a reference value.
    fn plain(value: &BigDecimal) -> String {
        let mut text = String::new();
        value.normalized().write_plain_string(&mut text).unwrap();
        text
    }

    /// Decimal texts of every kind: short and long, signed, with leading and trailing zeros, with
    /// exponents in and far out of range, around the edges of an i64, and garbage.
    fn decimal_text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let digits = || prop_oneof!["[0-9]{0,3}", "0{0,3}[1-9]{0,3}0{0,3}", "[0-9]{0,45}"];
        let exponent =
            prop_oneof![Just(String::new()), "[eE][-+]?[0-9]{1,3}", "[eE]-?1[23][0-9]", "[eE][-+]?[0-9]{18,25}",];
        let structured = ("[-+]?", digits(), prop_oneof![Just(""), Just(".")], digits(), exponent).prop_map(
            |(sign, integer, point, fraction, exponent)| format!("{sign}{integer}{point}{fraction}{exponent}"),
        );
        let near_i64 = (any::<i64>(), -3i128..=3, prop_oneof![Just(0i64), -3i64..3, -170i64..130])
            .prop_map(|(unscaled, offset, exponent)| format!("{}e{exponent}", i128::from(unscaled) + offset));
        let boundary = prop_oneof![
            Just(i64::MAX as i128),
            Just(i64::MIN as i128),
            Just(u64::MAX as i128),
            Just(10i128.pow(18)),
            Just(10i128.pow(19))
        ];
        let near_edge =
            (boundary, -2i128..=2, any::<bool>(), -3i64..3).prop_map(|(edge, offset, negative, exponent)| {
                format!("{}{}e{exponent}", if negative { "-" } else { "" }, edge + offset)
            });
        prop_oneof![4 => structured, 2 => near_i64, 1 => near_edge, 1 => "[-+.eE0-9x ]{0,10}"]
    }

    /// Small numbers, so that pairs are often equal, or close, or sum to zero.
    fn small_text() -> impl proptest::strategy::Strategy<Value = String> {
        "-?[0-9]{1,2}(\\.[0-9])?(e-?[01])?"
    }

    /// Either of the two kinds of text, as a number DynamoDB accepts.
    fn number() -> impl proptest::strategy::Strategy<Value = Number> {
        use proptest::prelude::*;
        prop_oneof![decimal_text(), small_text()].prop_filter_map("not a number", |text| Number::parse(&text).ok())
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        /// Parsing refuses what the reference refuses, with the same error, and otherwise reads
        /// the reference's value, written, counted and held as the reference says.
        #[test]
        fn parse_agrees_with_the_reference(text in decimal_text()) {
            match (Number::parse(&text), reference(&text)) {
                (Ok(number), Ok(value)) => {
                    proptest::prop_assert_eq!(number.to_big().into_owned(), value.clone(), "{}", text);
                    proptest::prop_assert_eq!(number.to_string(), plain(&value), "{}", text);
                    let digits = value.normalized().as_bigint_and_scale().0.magnitude().to_string().len() as u64;
                    proptest::prop_assert_eq!(number.digit_count(), digits, "{}", text);
                    proptest::prop_assert_eq!(number.size_bytes(), digits.div_ceil(2) as usize + 1);
                    proptest::prop_assert_eq!(number.is_zero(), value.is_zero());
                    // Inline exactly when the significand fits an i64: one representation per value.
                    let fits = value.normalized().as_bigint_and_scale().0.to_i64().is_some();
                    proptest::prop_assert_eq!(matches!(number.0, Repr::Small { .. }), fits, "{}", text);
                    // Built from the reference's value, the number is the same one.
                    proptest::prop_assert_eq!(&Number::from_big(value), &number);
                }
                (parsed, expected) => proptest::prop_assert_eq!(parsed.map(|n| n.to_big().into_owned()), expected, "{}", text),
            }
        }

        /// Comparison, equality, sums and differences agree with the big decimals'.
        #[test]
        fn arithmetic_and_order_agree_with_the_reference(a in number(), b in number()) {
            let (x, y) = (a.to_big().into_owned(), b.to_big().into_owned());
            proptest::prop_assert_eq!(a.compare(&b), x.cmp(&y), "{:?} {:?}", a, b);
            proptest::prop_assert_eq!(a.cmp(&b), x.cmp(&y));
            proptest::prop_assert_eq!(a == b, a.compare(&b) == Ordering::Equal);
            let outcome = |result: Result<Number, DynamoError>| result.map(|n| n.to_big().into_owned()).map_err(|e| e.message);
            proptest::prop_assert_eq!(outcome(a.add(&b)), reference_result(&x + &y), "{:?} + {:?}", a, b);
            proptest::prop_assert_eq!(outcome(a.sub(&b)), reference_result(&x - &y), "{:?} - {:?}", a, b);
            // A result is normalized like a parsed number: its text reads back as the same number.
            if let Ok(sum) = a.add(&b) {
                proptest::prop_assert_eq!(Number::parse(&sum.to_string()).unwrap(), sum);
            }
        }
    }
}
