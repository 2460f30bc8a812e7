//! DynamoDB numbers: decimals of up to 38 significant digits, magnitude 1E-130 to below 1E+126.
//! No floating point is involved anywhere.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

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
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Number(BigDecimal);

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
        let mut at = 0;
        let negative = match bytes.first() {
            Some(b'-') => {
                at = 1;
                true
            }
            Some(b'+') => {
                at = 1;
                false
            }
            _ => false,
        };
        let mut digits = String::new();
        let mut fraction_len: i64 = 0;
        let mut seen_digit = false;
        let mut seen_point = false;
        while at < bytes.len() {
            match bytes[at] {
                c @ b'0'..=b'9' => {
                    seen_digit = true;
                    digits.push(c as char);
                    if seen_point {
                        fraction_len += 1;
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
        let trimmed = digits.trim_start_matches('0');
        if trimmed.is_empty() {
            return Ok(Number::zero());
        }
        let significant = trimmed.trim_end_matches('0');
        let trailing_zeros = (trimmed.len() - significant.len()) as i64;
        // value = significant * 10^(trailing_zeros - fraction_len + exponent)
        let scale_exp = trailing_zeros.saturating_sub(fraction_len).saturating_add(exponent);
        let magnitude = scale_exp.saturating_add(significant.len() as i64 - 1);
        if magnitude > MAX_MAGNITUDE {
            return Err(NumberError::Overflow);
        }
        if magnitude < MIN_MAGNITUDE {
            return Err(NumberError::Underflow);
        }
        if significant.len() as u64 > MAX_DIGITS {
            return Err(NumberError::Precision);
        }
        // Up to 19 digits fit a u64, which is far cheaper to read than a big integer.
        let unscaled = match significant.parse::<u64>() {
            Ok(small) => BigInt::from(small),
            Err(_) => BigInt::from_str(significant).map_err(|_| NumberError::Syntax)?,
        };
        let unscaled = if negative { -unscaled } else { unscaled };
        Ok(Number(BigDecimal::new(unscaled, -scale_exp)))
    }

    /// Zero.
    pub fn zero() -> Number {
        Number(BigDecimal::from(0))
    }

    /// An integer.
    pub fn from_i64(value: i64) -> Number {
        // Normalized as `parse` leaves numbers: the trailing zeros move into the exponent.
        let (mut unscaled, mut exponent) = (value, 0i64);
        while unscaled != 0 && unscaled % 10 == 0 {
            unscaled /= 10;
            exponent += 1;
        }
        Number(BigDecimal::new(BigInt::from(unscaled), -exponent))
    }

    /// The number as an `i64`, if it is an integer that fits one.
    fn as_i64(&self) -> Option<i64> {
        let (unscaled, scale) = self.0.as_bigint_and_scale();
        let unscaled = unscaled.to_i64()?;
        match scale {
            0 => Some(unscaled),
            // A normalized integer keeps its trailing zeros in a negative scale.
            ..0 => unscaled.checked_mul(10i64.checked_pow(u32::try_from(-scale).ok()?)?),
            _ => None,
        }
    }

    fn checked(value: BigDecimal) -> Result<Number, DynamoError> {
        let value = value.normalized();
        if value.is_zero() {
            return Ok(Number::zero());
        }
        let magnitude = value.order_of_magnitude();
        if magnitude > MAX_MAGNITUDE {
            return Err(NumberError::Overflow.to_error(""));
        }
        if magnitude < MIN_MAGNITUDE {
            return Err(NumberError::Underflow.to_error(""));
        }
        // A sum or difference too precise to keep is refused as an overflow, not as the
        // precision error a number read from a request gets (ScyllaDB's Alternator suite,
        // which runs against DynamoDB: `1e50 + 1`).
        if value.digits() > MAX_DIGITS {
            return Err(NumberError::Overflow.to_error(""));
        }
        Ok(Number(value))
    }

    /// `self + other`, with DynamoDB's range and precision errors.
    pub fn add(&self, other: &Number) -> Result<Number, DynamoError> {
        // Counters and versions: two integers that fit an i64 add without a big decimal. Any
        // i64 is far inside DynamoDB's range and precision.
        if let (Some(a), Some(b)) = (self.as_i64(), other.as_i64())
            && let Some(sum) = a.checked_add(b)
        {
            return Ok(Number::from_i64(sum));
        }
        Number::checked(&self.0 + &other.0)
    }

    /// `self - other`, with DynamoDB's range and precision errors.
    pub fn sub(&self, other: &Number) -> Result<Number, DynamoError> {
        if let (Some(a), Some(b)) = (self.as_i64(), other.as_i64())
            && let Some(difference) = a.checked_sub(b)
        {
            return Ok(Number::from_i64(difference));
        }
        Number::checked(&self.0 - &other.0)
    }

    /// The number of significant digits.
    pub fn digit_count(&self) -> u64 {
        if self.is_zero() {
            return 1;
        }
        let (unscaled, _) = self.0.as_bigint_and_scale();
        match unscaled.magnitude().to_u64() {
            Some(small) => u64::from(small.ilog10()) + 1,
            None => self.0.digits(),
        }
    }

    /// True for zero.
    pub fn is_zero(&self) -> bool {
        self.0.is_zero()
    }

    /// The size DynamoDB charges for the number: one byte per two significant digits, plus one.
    pub fn size_bytes(&self) -> usize {
        (self.digit_count() as usize).div_ceil(2) + 1
    }

    /// Compares two numbers by value.
    pub fn compare(&self, other: &Number) -> Ordering {
        self.0.cmp(&other.0)
    }
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // DynamoDB answers numbers in plain notation, without exponent or superfluous zeros.
        match self.as_i64() {
            Some(integer) => fmt::Display::fmt(&integer, f),
            None => self.0.write_plain_string(f),
        }
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
            number.0.write_plain_string(&mut plain).unwrap();
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
            let (wide_sum, wide_difference) = (&x.0 + &y.0, &x.0 - &y.0);
            assert_eq!(x.add(&y).unwrap().0, wide_sum, "{a} + {b}");
            assert_eq!(x.sub(&y).unwrap().0, wide_difference, "{a} - {b}");
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
}
