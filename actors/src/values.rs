//! Validated domain values, parsed once at the edge and trusted inside.
//!
//! Each type parses itself from a JSON string (or an integer: [`Seconds`], [`Watts`]) as a
//! [`deserr::Deserr`] value. A refusal is deserr's `Unexpected` error whose message starts with
//! its stable message key, `errors.<name>: human text`, so the web crate turns it into a field
//! error at the field's JSON path without knowing the type.

use deserr::{DeserializeError, Deserr, ErrorKind, IntoValue, ValueKind, ValuePointerRef};
use rust_decimal::Decimal;
use std::str::FromStr;
use storage::records::PostalAddress;

/// Builds a refusal message in the `key: text` form described in the module doc.
fn refuse(key: &str, text: &str) -> String {
    format!("{key}: {text}")
}

/// The deserr error of a refused value at `location`: `message` in the `key: text` form.
pub fn refusal<E: DeserializeError>(message: String, location: ValuePointerRef) -> E {
    let kind = ErrorKind::Unexpected { msg: message };
    deserr::take_cf_content(E::error::<std::convert::Infallible>(None, kind, location))
}

/// A value parsed from the JSON string `value` by `parse` (which refuses in the `key: text`
/// form). Errors: deserr's `IncorrectValueKind` for anything but a string, else `parse`'s
/// refusal at `location`.
pub fn from_text<T, E: DeserializeError, V: IntoValue>(
    value: deserr::Value<V>,
    location: ValuePointerRef,
    parse: impl FnOnce(String) -> Result<T, String>,
) -> Result<T, E> {
    match value {
        deserr::Value::String(text) => parse(text).map_err(|m| refusal(m, location)),
        other => {
            let kind = ErrorKind::IncorrectValueKind {
                actual: other,
                accepted: &[ValueKind::String],
            };
            Err(deserr::take_cf_content(E::error(None, kind, location)))
        }
    }
}

/// The decimal mark a person types, where a form (not the API) is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecimalMark {
    /// `12.5` (English). A comma is a thousands separator here, refused.
    Point,
    /// `12,5` (German); the point keeps working. A number with both is refused: one of them
    /// would be a thousands separator.
    Comma,
}

impl DecimalMark {
    /// A canonical decimal (`-1234.5`, as `Decimal` displays) as people of this mark write it,
    /// thousands grouped: `-1,234.5` with the point, `-1.234,5` with the comma (CLDR's en and
    /// de symbols). Text that is not a canonical decimal is returned as it is.
    pub fn grouped(self, canonical: &str) -> String {
        let (sign, digits) = canonical
            .strip_prefix('-')
            .map_or(("", canonical), |d| ("-", d));
        let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
        if whole.is_empty()
            || !whole
                .bytes()
                .chain(fraction.bytes())
                .all(|b| b.is_ascii_digit())
        {
            return canonical.to_string();
        }
        let (group, point) = match self {
            DecimalMark::Point => (',', '.'),
            DecimalMark::Comma => ('.', ','),
        };
        let mut out = String::from(sign);
        for (i, digit) in whole.chars().enumerate() {
            if i > 0 && (whole.len() - i) % 3 == 0 {
                out.push(group);
            }
            out.push(digit);
        }
        if !fraction.is_empty() {
            out.push(point);
            out.push_str(fraction);
        }
        out
    }
}

thread_local! {
    static TYPED: std::cell::Cell<Option<DecimalMark>> = const { std::cell::Cell::new(None) };
}

/// Runs `read` (synchronous: a form's parse) with decimals read as a person of `mark` types
/// them; outside it (the API) only the canonical `12.5` is taken.
pub fn typed_with<R>(mark: DecimalMark, read: impl FnOnce() -> R) -> R {
    let before = TYPED.with(|t| t.replace(Some(mark)));
    let result = read();
    TYPED.with(|t| t.set(before));
    result
}

/// `text` as a canonical decimal text, given the mark forms are read with (none: as it is).
///
/// Errors: `errors.thousandsSeparator` for a comma in a form read with [`DecimalMark::Point`],
/// or a comma and a point together in one read with [`DecimalMark::Comma`].
fn canonical_mark(text: &str) -> Result<std::borrow::Cow<'_, str>, String> {
    let separator = || {
        refuse(
            "errors.thousandsSeparator",
            "no thousands separator: write 1299.50 (or 1299,50 in German)",
        )
    };
    if !text.contains(',') {
        return Ok(text.into());
    }
    match TYPED.with(std::cell::Cell::get) {
        None => Ok(text.into()),
        Some(DecimalMark::Point) => Err(separator()),
        Some(DecimalMark::Comma) if text.contains('.') => Err(separator()),
        Some(DecimalMark::Comma) => Ok(text.replacen(',', ".", 1).into()),
    }
}

/// Parses a plain decimal: optional `-`, digits, optional `.` and digits. No exponent, no `+`,
/// no separators, no spaces. At most `max_whole` integer and `max_fraction` fractional digits.
/// In a form read with [`typed_with`], the decimal comma is taken as that says.
///
/// Errors: `errors.invalidDecimal` for any other text, `errors.outOfRange` for too many digits,
/// `errors.thousandsSeparator` as [`typed_with`] says.
pub fn parse_decimal(text: &str, max_whole: usize, max_fraction: usize) -> Result<Decimal, String> {
    let text = canonical_mark(text)?;
    let text = text.as_ref();
    let invalid = || {
        refuse(
            "errors.invalidDecimal",
            "expected a plain decimal string such as \"1.50\"",
        )
    };
    let unsigned = text.strip_prefix('-').unwrap_or(text);
    let (whole, fraction) = match unsigned.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (unsigned, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || fraction.is_some_and(|f| !digits(f)) {
        return Err(invalid());
    }
    let significant_whole = whole.trim_start_matches('0').len();
    if significant_whole > max_whole || fraction.map_or(0, str::len) > max_fraction {
        return Err(refuse(
            "errors.outOfRange",
            &format!("at most {max_whole} whole and {max_fraction} fractional digits"),
        ));
    }
    Decimal::from_str_exact(text).map_err(|_| invalid())
}

/// Whole digits a general decimal may have (prices, hours, grams).
pub const WHOLE_DIGITS: usize = 15;
/// Fractional digits a general decimal may have.
pub const FRACTION_DIGITS: usize = 10;

/// A JSON-schema pattern that a text matches when it is not blank: it holds a character that
/// is not Unicode `White_Space`, which is what Rust's `trim` takes away. (`\S` would not do: a
/// generator's idea of white space leaves out U+0085, which `trim` removes.)
pub const NOT_BLANK: &str =
    r"[^\t-\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]";

/// Most characters of free text (notes, reasons), before trimming.
pub const NOTE_MAX_CHARS: usize = 10_000;

/// Whole digits of grams (spec, Limits: movements).
pub const GRAMS_WHOLE: usize = 12;
/// Fractional digits of grams (spec, Limits: movements).
pub const GRAMS_FRACTION: usize = 6;

/// Which decimals a pattern admits, by sign.
#[derive(Debug, Clone, Copy)]
pub enum Sign {
    /// Any sign.
    Any,
    /// Zero or more.
    NonNegative,
    /// More than zero.
    Positive,
    /// Anything but zero.
    NonZero,
}

/// A JSON-schema pattern for the plain decimals [`parse_decimal`] takes with `whole` and
/// `fraction` digits and `sign`. Leading zeros are admitted, as the parser does.
pub fn decimal_pattern(whole: usize, fraction: usize, sign: Sign) -> String {
    let tail = format!(r"(\.[0-9]{{1,{fraction}}})?");
    match sign {
        Sign::Any => format!(r"^-?0*[0-9]{{1,{whole}}}{tail}$"),
        Sign::NonNegative => format!(r"^0*[0-9]{{1,{whole}}}{tail}$"),
        Sign::Positive | Sign::NonZero => format!(
            r"^{}0*([1-9][0-9]{{0,{}}}{tail}|0\.[0-9]{{0,{}}}[1-9])$",
            if matches!(sign, Sign::NonZero) {
                "-?"
            } else {
                ""
            },
            whole - 1,
            fraction - 1
        ),
    }
}

/// A JSON-schema pattern for the plain decimals [`parse_decimal`] takes with `whole` and
/// `fraction` digits and `sign` that are whole numbers (a count of pieces): digits, and a
/// fraction of zeros at most. Leading zeros are admitted, as the parser does.
pub fn whole_pattern(whole: usize, fraction: usize, sign: Sign) -> String {
    let tail = format!(r"(\.0{{1,{fraction}}})?");
    match sign {
        Sign::Any => format!(r"^-?0*[0-9]{{1,{whole}}}{tail}$"),
        Sign::NonNegative => format!(r"^0*[0-9]{{1,{whole}}}{tail}$"),
        Sign::Positive => format!(r"^0*[1-9][0-9]{{0,{}}}{tail}$", whole - 1),
        Sign::NonZero => format!(r"^-?0*[1-9][0-9]{{0,{}}}{tail}$", whole - 1),
    }
}

/// The OpenAPI schema of a value's JSON string: its pattern and length bounds, so a generated
/// client (or a fuzzer) sends only what the value's parser takes.
fn wire(
    pattern: Option<String>,
    min_length: Option<usize>,
    max_length: Option<usize>,
) -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(pattern)
        .min_length(min_length)
        .max_length(max_length)
        .into()
}

/// `text` as a non-negative decimal of at most `whole` and `fraction` digits, normalized.
/// Errors: as [`parse_decimal`]; `errors.negative`.
fn non_negative(text: &str, whole: usize, fraction: usize) -> Result<Decimal, String> {
    let d = parse_decimal(text, whole, fraction)?;
    if d.is_sign_negative() && !d.is_zero() {
        return Err(refuse("errors.negative", "must not be negative"));
    }
    Ok(d.normalize())
}

macro_rules! string_value {
    ($(#[$doc:meta])* $name:ident($inner:ty), schema = $schema:expr, $parse:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub struct $name($inner);

        impl<E: DeserializeError> Deserr<E> for $name {
            fn deserialize_from_value<V: IntoValue>(
                value: deserr::Value<V>,
                location: ValuePointerRef,
            ) -> Result<Self, E> {
                from_text(value, location, Self::try_from)
            }
        }

        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                $schema
            }
        }

        impl utoipa::ToSchema for $name {}

        impl TryFrom<String> for $name {
            type Error = String;
            fn try_from(text: String) -> Result<Self, String> {
                let parse: fn(String) -> Result<$inner, String> = $parse;
                parse(text).map($name)
            }
        }

        impl FromStr for $name {
            type Err = String;
            fn from_str(text: &str) -> Result<Self, String> {
                Self::try_from(text.to_string())
            }
        }

        impl $name {
            /// The validated value.
            pub fn get(&self) -> &$inner {
                &self.0
            }

            /// The validated value, owned.
            pub fn into_inner(self) -> $inner {
                self.0
            }

            /// A value read back from the store, validated when it was written.
            #[allow(dead_code)]
            pub(crate) fn trusted(value: $inner) -> Self {
                $name(value)
            }
        }
    };
}

string_value!(
    /// A non-negative decimal (a price in the instance currency, a price per kWh, a threshold in
    /// grams). Errors: `errors.invalidDecimal`, `errors.outOfRange`, `errors.negative`.
    Amount(Decimal),
    schema = wire(Some(decimal_pattern(WHOLE_DIGITS, FRACTION_DIGITS, Sign::NonNegative)), None, None),
    |text| non_negative(&text, WHOLE_DIGITS, FRACTION_DIGITS)
);

string_value!(
    /// A non-negative amount of filament in grams: at most 12 whole and 6 fractional digits
    /// (spec, Limits). Errors: `errors.invalidDecimal`, `errors.outOfRange`, `errors.negative`.
    Grams(Decimal),
    schema = wire(Some(decimal_pattern(GRAMS_WHOLE, GRAMS_FRACTION, Sign::NonNegative)), None, None),
    |text| non_negative(&text, GRAMS_WHOLE, GRAMS_FRACTION)
);

string_value!(
    /// Signed grams of a ledger movement: at most 12 whole and 6 fractional digits.
    /// Errors: `errors.invalidDecimal`, `errors.outOfRange`.
    SignedGrams(Decimal),
    schema = wire(Some(decimal_pattern(GRAMS_WHOLE, GRAMS_FRACTION, Sign::Any)), None, None),
    |text| Ok(parse_decimal(&text, GRAMS_WHOLE, GRAMS_FRACTION)?.normalize())
);

string_value!(
    /// A strictly positive amount of filament in grams that may become an opening receipt (a
    /// spool's or a filament's net weight): the ledger's limits of 12 whole and 6 fractional
    /// digits. Errors: `errors.invalidDecimal`, `errors.outOfRange`, `errors.notPositive`.
    PositiveGrams(Decimal),
    schema = wire(Some(decimal_pattern(GRAMS_WHOLE, GRAMS_FRACTION, Sign::Positive)), None, None),
    |text| {
        let d = parse_decimal(&text, GRAMS_WHOLE, GRAMS_FRACTION)?;
        if d <= Decimal::ZERO {
            return Err(refuse("errors.notPositive", "must be greater than zero"));
        }
        Ok(d.normalize())
    }
);

string_value!(
    /// A strictly positive decimal (a lifetime in hours).
    /// Errors: `errors.invalidDecimal`, `errors.outOfRange`, `errors.notPositive`.
    PositiveAmount(Decimal),
    schema = wire(Some(decimal_pattern(WHOLE_DIGITS, FRACTION_DIGITS, Sign::Positive)), None, None),
    |text| {
        let d = parse_decimal(&text, WHOLE_DIGITS, FRACTION_DIGITS)?;
        if d <= Decimal::ZERO {
            return Err(refuse("errors.notPositive", "must be greater than zero"));
        }
        Ok(d.normalize())
    }
);

string_value!(
    /// A required single-line text, trimmed, 1 to 200 characters (names, models, materials).
    /// Errors: `errors.required` when blank, `errors.tooLong`.
    Name(String),
    schema = wire(Some(NOT_BLANK.into()), Some(1), Some(200)),
    |text| {
        let t = text.trim();
        if t.is_empty() {
            return Err(refuse("errors.required", "must not be blank"));
        }
        if t.chars().count() > 200 {
            return Err(refuse("errors.tooLong", "at most 200 characters"));
        }
        Ok(t.to_string())
    }
);

string_value!(
    /// Free text up to 10,000 characters (notes). Blank text means "none" at the call site.
    /// Errors: `errors.tooLong`.
    Note(String),
    schema = wire(None, None, Some(NOTE_MAX_CHARS)),
    |text| {
        if text.chars().count() > NOTE_MAX_CHARS {
            return Err(refuse("errors.tooLong", "at most 10000 characters"));
        }
        Ok(text.trim().to_string())
    }
);

string_value!(
    /// An email address: trimmed, one `@` with text on both sides, no spaces, at most 254
    /// characters. Errors: `errors.invalidEmail`.
    Email(String),
    schema = wire(Some(r"^[!-?A-~]+@[!-?A-~]+$".into()), None, Some(254)),
    |text| {
        let t = text.trim();
        let valid = t.len() <= 254
            && !t.contains(char::is_whitespace)
            && matches!(t.split_once('@'), Some((local, domain)) if !local.is_empty() && !domain.is_empty() && !domain.contains('@'));
        if !valid {
            return Err(refuse("errors.invalidEmail", "not a valid email address"));
        }
        Ok(t.to_string())
    }
);

string_value!(
    /// A password of 12 to 1,024 characters (setup, password change). Never stored: only its
    /// argon2id hash is. Errors: `errors.passwordTooShort`, `errors.tooLong`.
    Password(String),
    schema = wire(None, Some(12), Some(1024)),
    |text| {
        let n = text.chars().count();
        if n < 12 {
            return Err(refuse("errors.passwordTooShort", "at least 12 characters"));
        }
        if n > 1024 {
            return Err(refuse("errors.tooLong", "at most 1024 characters"));
        }
        Ok(text)
    }
);

/// A calendar date `YYYY-MM-DD` that exists, as a JSON-schema pattern without anchors: months'
/// own lengths, and 29 February of leap years only (Gregorian: a year divisible by 4 and not by
/// 100, or by 400). A schema's client (or a fuzzer) then sends no date the parser refuses.
pub const DATE_PATTERN: &str = concat!(
    r"([0-9]{4}-((0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01])|(0[469]|11)-(0[1-9]|[12][0-9]|30)",
    r"|02-(0[1-9]|1[0-9]|2[0-8]))",
    r"|([0-9]{2}(0[48]|[2468][048]|[13579][26])|([02468][048]|[13579][26])00)-02-29)"
);

string_value!(
    /// A calendar date `YYYY-MM-DD` (a spool's purchase date), or none when the text is blank;
    /// its pattern admits exactly the dates that exist ([`DATE_PATTERN`]).
    /// Errors: `errors.invalidDate`.
    PurchaseDate(Option<jiff::civil::Date>),
    schema = wire(Some(format!("^( *|{DATE_PATTERN})$")), None, None),
    |text| {
        let t = text.trim();
        if t.is_empty() {
            return Ok(None);
        }
        t.parse::<jiff::civil::Date>()
            .map(Some)
            .map_err(|_| refuse("errors.invalidDate", "expected a date YYYY-MM-DD"))
    }
);
/// A moment in RFC 3339 with its offset (`2026-11-20T10:00:00Z`, `2026-11-20T11:00:00+01:00`),
/// as a JSON-schema pattern: the date as [`DATE_PATTERN`], no leap second.
pub const MOMENT_PATTERN: &str = r"T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,9})?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])";

string_value!(
    /// A moment in RFC 3339 with its offset ([`MOMENT_PATTERN`]), to the second (a fraction is
    /// dropped): a run's start or end. Errors: `errors.invalidMoment`.
    Moment(storage::Timestamp),
    schema = wire(Some(format!("^({DATE_PATTERN}){MOMENT_PATTERN}$")), None, None),
    |text| {
        text.trim()
            .parse::<jiff::Timestamp>()
            .map(|t| storage::Timestamp(t.as_second()))
            .map_err(|_| refuse("errors.invalidMoment", "expected an RFC 3339 time with its offset"))
    }
);

string_value!(
    /// A non-negative energy in kWh: at most 9 whole and 6 fractional digits (a meter's
    /// resolution, [`storage::records::MAX_SCALE`]). Errors: `errors.invalidDecimal`,
    /// `errors.outOfRange`, `errors.negative`.
    Kwh(Decimal),
    schema = wire(Some(decimal_pattern(9, 6, Sign::NonNegative)), None, None),
    |text| non_negative(&text, 9, 6)
);

string_value!(
    /// A supported locale: `en-US` or `de-DE`. Errors: `errors.unsupportedLocale`.
    Locale(String),
    schema = wire(Some("^(en-US|de-DE)$".into()), None, None),
    |text| match text.as_str() {
        "en-US" | "de-DE" => Ok(text),
        _ => Err(refuse("errors.unsupportedLocale", "expected en-US or de-DE")),
    }
);

/// The pattern of an ISO 3166-1 alpha-2 code: every assigned one, as the `isocountry` crate
/// lists them.
fn country_pattern() -> String {
    let codes: Vec<&str> = isocountry::CountryCode::iter()
        .map(|c| c.alpha2())
        .collect();
    format!("^({})$", codes.join("|"))
}

string_value!(
    /// An ISO 3166-1 alpha-2 country code, stored upper-case (`DE`); only assigned codes.
    /// Errors: `errors.invalidCountry`.
    Country(String),
    schema = wire(Some(country_pattern()), None, None),
    |text| {
        let code = text.trim().to_ascii_uppercase();
        match isocountry::CountryCode::for_alpha2(&code) {
            Ok(_) => Ok(code),
            Err(_) => Err(refuse("errors.invalidCountry", "expected an ISO 3166-1 alpha-2 code")),
        }
    }
);

/// A postal address input, each part checked: a customer's or the shop's.
#[derive(Debug, Clone)]
pub struct AddressInput {
    /// Street and number.
    pub street: Name,
    /// Postal code.
    pub postal_code: Name,
    /// City.
    pub city: Name,
    /// ISO 3166-1 alpha-2.
    pub country: Country,
}

impl AddressInput {
    /// The stored form.
    pub fn address(&self) -> PostalAddress {
        PostalAddress {
            street: self.street.get().clone(),
            postal_code: self.postal_code.get().clone(),
            city: self.city.get().clone(),
            country: self.country.get().clone(),
        }
    }
}

/// The shapes of VAT identification numbers after their two-letter prefix, per prefix: the EU
/// member states' as the European Commission's VIES lists them (Greece's prefix is `EL`;
/// `XI` is Northern Ireland), and the United Kingdom's, Switzerland's (`CHE` and its UID with an
/// optional `MWST`, `TVA` or `IVA`) and Norway's (`MVA` after the number). In a shape, `9` is a
/// digit, `A` a letter, `X` a letter or digit, `+` a letter, `+` or `*` (Ireland's second
/// character); any other character stands for itself.
const VAT_ID_SHAPES: &[(&str, &[&str])] = &[
    ("AT", &["U99999999"]),
    ("BE", &["9999999999"]),
    ("BG", &["999999999", "9999999999"]),
    (
        "CH",
        &[
            "E999999999",
            "E999999999MWST",
            "E999999999TVA",
            "E999999999IVA",
        ],
    ),
    ("CY", &["99999999A"]),
    ("CZ", &["99999999", "999999999", "9999999999"]),
    ("DE", &["999999999"]),
    ("DK", &["99999999"]),
    ("EE", &["999999999"]),
    ("EL", &["999999999"]),
    ("ES", &["X9999999X"]),
    ("FI", &["99999999"]),
    ("FR", &["XX999999999"]),
    ("GB", &["999999999", "999999999999", "GD999", "HA999"]),
    ("HR", &["99999999999"]),
    ("HU", &["99999999"]),
    ("IE", &["9999999A", "9999999AA", "9+99999A"]),
    ("IT", &["99999999999"]),
    ("LT", &["999999999", "999999999999"]),
    ("LU", &["99999999"]),
    ("LV", &["99999999999"]),
    ("MT", &["99999999"]),
    ("NL", &["999999999B99"]),
    ("NO", &["999999999MVA"]),
    ("PL", &["9999999999"]),
    ("PT", &["999999999"]),
    (
        "RO",
        &[
            "99",
            "999",
            "9999",
            "99999",
            "999999",
            "9999999",
            "99999999",
            "999999999",
            "9999999999",
        ],
    ),
    ("SE", &["999999999999"]),
    ("SI", &["99999999"]),
    ("SK", &["9999999999"]),
    ("XI", &["999999999", "999999999999", "GD999", "HA999"]),
];

/// Whether `number` (upper-case) has `shape` ([`VAT_ID_SHAPES`]).
fn has_shape(number: &str, shape: &str) -> bool {
    number.len() == shape.len()
        && number.bytes().zip(shape.bytes()).all(|(c, s)| match s {
            b'9' => c.is_ascii_digit(),
            b'A' => c.is_ascii_uppercase(),
            b'X' => c.is_ascii_uppercase() || c.is_ascii_digit(),
            b'+' => c.is_ascii_uppercase() || c == b'+' || c == b'*',
            other => c == other,
        })
}

/// The JSON-schema pattern of a VAT id: every prefix with its shapes ([`VAT_ID_SHAPES`]),
/// letters in either case, so a schema's client sends no number the parser refuses.
fn vat_id_pattern() -> String {
    let class = |s: u8| match s {
        b'9' => "[0-9]".to_string(),
        b'A' => "[A-Za-z]".to_string(),
        b'X' => "[0-9A-Za-z]".to_string(),
        b'+' => "[A-Za-z+*]".to_string(),
        c => format!("[{}{}]", c as char, c.to_ascii_lowercase() as char),
    };
    let each: Vec<String> = VAT_ID_SHAPES
        .iter()
        .map(|(prefix, shapes)| {
            let prefix: String = prefix.bytes().map(class).collect();
            let shapes: Vec<String> = shapes
                .iter()
                .map(|shape| shape.bytes().map(class).collect())
                .collect();
            format!("{prefix}({})", shapes.join("|"))
        })
        .collect();
    format!("^({})$", each.join("|"))
}

string_value!(
    /// A VAT identification number: its country prefix and a number of that country's shape
    /// ([`VAT_ID_SHAPES`]), spaces, dots and hyphens removed and stored upper-case
    /// (`DE123456789`, `ATU12345678`, `CHE123456789MWST`). Errors: `errors.invalidVatId`.
    VatId(String),
    schema = wire(Some(vat_id_pattern()), None, None),
    |text| {
        let id: String = text
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '.' && *c != '-')
            .collect::<String>()
            .to_ascii_uppercase();
        let known = VAT_ID_SHAPES.iter().any(|(prefix, shapes)| {
            id.strip_prefix(prefix)
                .is_some_and(|number| shapes.iter().any(|shape| has_shape(number, shape)))
        });
        match known {
            true => Ok(id),
            false => Err(refuse("errors.invalidVatId", "expected a country prefix and a number of that country's shape")),
        }
    }
);

string_value!(
    /// A calendar date `YYYY-MM-DD` that exists ([`DATE_PATTERN`]): a quote's validity.
    /// Errors: `errors.invalidDate`.
    Day(jiff::civil::Date),
    schema = wire(Some(format!("^{DATE_PATTERN}$")), None, None),
    |text| {
        text.trim()
            .parse::<jiff::civil::Date>()
            .map_err(|_| refuse("errors.invalidDate", "expected a date YYYY-MM-DD"))
    }
);

/// Whether `iban` (upper-case, no spaces) passes ISO 13616's check: its first four characters
/// moved to the end, letters as 10 to 35, the number modulo 97 is 1.
fn iban_checks(iban: &str) -> bool {
    let (head, tail) = iban.split_at(4.min(iban.len()));
    let mut rest: u32 = 0;
    for c in tail.chars().chain(head.chars()) {
        let Some(value) = c.to_digit(36) else {
            return false;
        };
        rest = match value {
            0..=9 => (rest * 10 + value) % 97,
            _ => (rest * 100 + value) % 97,
        };
    }
    rest == 1
}

string_value!(
    /// An IBAN (ISO 13616): a country prefix, two check digits and 11 to 30 letters or digits,
    /// spaces removed and stored upper-case (`DE89370400440532013000`); the check digits must
    /// hold. Errors: `errors.invalidIban`.
    Iban(String),
    schema = wire(Some("^[A-Za-z]{2}[0-9]{2}[0-9A-Za-z]{11,30}$".into()), None, None),
    |text| {
        let iban: String = text.split_whitespace().collect::<String>().to_ascii_uppercase();
        let bytes = iban.as_bytes();
        let shaped = (15..=34).contains(&bytes.len())
            && bytes.iter().take(2).all(u8::is_ascii_uppercase)
            && bytes.iter().skip(2).take(2).all(u8::is_ascii_digit)
            && bytes.iter().all(u8::is_ascii_alphanumeric);
        match shaped && iban_checks(&iban) {
            true => Ok(iban),
            false => Err(refuse("errors.invalidIban", "expected an IBAN whose check digits hold")),
        }
    }
);

string_value!(
    /// A BIC (ISO 9362): 8 or 11 letters and digits, the bank's four letters and the country's
    /// two first, stored upper-case (`COBADEFFXXX`). Errors: `errors.invalidBic`.
    Bic(String),
    schema = wire(Some("^[A-Za-z]{6}[0-9A-Za-z]{2}([0-9A-Za-z]{3})?$".into()), None, None),
    |text| {
        let bic = text.trim().to_ascii_uppercase();
        let bytes = bic.as_bytes();
        let valid = (bytes.len() == 8 || bytes.len() == 11)
            && bytes.iter().take(6).all(u8::is_ascii_uppercase)
            && bytes.iter().all(u8::is_ascii_alphanumeric);
        match valid {
            true => Ok(bic),
            false => Err(refuse("errors.invalidBic", "expected a BIC of 8 or 11 characters")),
        }
    }
);

string_value!(
    /// An ISO 4217 currency code: three ASCII letters, stored upper-case (`EUR`).
    /// Errors: `errors.invalidCurrency`.
    Currency(String),
    schema = wire(Some("^[A-Za-z]{3}$".into()), None, None),
    |text| {
        let t = text.trim();
        if t.len() != 3 || !t.bytes().all(|b| b.is_ascii_alphabetic()) {
            return Err(refuse("errors.invalidCurrency", "expected a three-letter ISO 4217 code"));
        }
        Ok(t.to_ascii_uppercase())
    }
);

string_value!(
    /// A colour as `#RRGGBB`, stored upper-case. Errors: `errors.invalidColor`.
    HexColor(String),
    schema = wire(Some("^#[0-9A-Fa-f]{6}$".into()), None, None),
    |text| {
        let valid = text.len() == 7
            && text.starts_with('#')
            && text[1..].bytes().all(|b| b.is_ascii_hexdigit());
        if !valid {
            return Err(refuse("errors.invalidColor", "expected #RRGGBB"));
        }
        Ok(text.to_ascii_uppercase())
    }
);

/// Largest duration, seconds (spec, Limits: "outcome durationSeconds 0 to 2,147,483,647").
pub const MAX_SECONDS: u32 = i32::MAX as u32;

/// A duration in whole seconds, 0 to 2,147,483,647 (spec, Limits), from a JSON integer.
/// Errors: `errors.outOfRange` above the limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seconds(u32);

/// A value parsed from a JSON integer by `parse` (which refuses in the `key: text` form).
/// Errors: deserr's for anything but a non-negative integer, else `parse`'s refusal.
fn from_integer<T, E: DeserializeError, V: IntoValue>(
    value: deserr::Value<V>,
    location: ValuePointerRef,
    parse: impl FnOnce(u64) -> Result<T, String>,
) -> Result<T, E> {
    let number = u64::deserialize_from_value(value, location)?;
    parse(number).map_err(|m| refusal(m, location))
}

impl<E: DeserializeError> Deserr<E> for Seconds {
    fn deserialize_from_value<V: IntoValue>(
        value: deserr::Value<V>,
        location: ValuePointerRef,
    ) -> Result<Self, E> {
        from_integer(value, location, Self::try_from)
    }
}

/// `value` when it is at most `max`. Errors: `errors.outOfRange`, saying `at most {max} {unit}`.
fn at_most(value: u64, max: u32, unit: &str) -> Result<u32, String> {
    u32::try_from(value)
        .ok()
        .filter(|v| *v <= max)
        .ok_or_else(|| refuse("errors.outOfRange", &format!("at most {max} {unit}")))
}

impl TryFrom<u64> for Seconds {
    type Error = String;

    fn try_from(value: u64) -> Result<Self, String> {
        at_most(value, MAX_SECONDS, "seconds").map(Seconds)
    }
}

impl Seconds {
    /// The validated number of seconds.
    pub fn get(self) -> u32 {
        self.0
    }

    /// A duration read back from the store, validated when it was written (clamped to the
    /// limit all the same).
    pub(crate) fn trusted(seconds: u32) -> Self {
        Seconds(seconds.min(MAX_SECONDS))
    }
}

/// Largest average power of a printer, watts: far above any 3D printer (a large one draws about
/// 1 kW), and small enough that `watts × seconds` of any duration stays exact.
pub const MAX_WATTS: u32 = 100_000;

/// A printer's average power while printing, whole watts, 0 to [`MAX_WATTS`], from a JSON
/// integer. Errors: `errors.outOfRange` above the limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Watts(u32);

impl<E: DeserializeError> Deserr<E> for Watts {
    fn deserialize_from_value<V: IntoValue>(
        value: deserr::Value<V>,
        location: ValuePointerRef,
    ) -> Result<Self, E> {
        from_integer(value, location, Self::try_from)
    }
}

impl TryFrom<u64> for Watts {
    type Error = String;

    fn try_from(value: u64) -> Result<Self, String> {
        at_most(value, MAX_WATTS, "watts").map(Watts)
    }
}

impl Watts {
    /// The validated number of watts.
    pub fn get(self) -> u32 {
        self.0
    }
}

/// `at` as RFC 3339 in UTC, whole seconds (`2026-11-27T08:00:00Z`): how every time is written
/// on the wire, in alerts and in fingerprints; none beyond the years -9999 to 9999.
pub fn rfc3339(at: storage::Timestamp) -> Option<String> {
    jiff::Timestamp::from_second(at.0)
        .ok()
        .map(|t| t.to_string())
}

/// An optional note: `None` when absent or blank.
pub fn note_text(note: Option<Note>) -> Option<String> {
    note.map(Note::into_inner).filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {

    #[test]
    fn grouped_numbers_follow_the_mark() {
        assert_eq!(DecimalMark::Comma.grouped("-1234567.5"), "-1.234.567,5");
        assert_eq!(DecimalMark::Point.grouped("1234.50"), "1,234.50");
        assert_eq!(DecimalMark::Point.grouped("999"), "999");
        assert_eq!(DecimalMark::Comma.grouped("n/a"), "n/a");
    }

    use super::*;

    #[test]
    fn forms_take_the_decimal_mark_their_reader_types_and_the_api_only_the_point() {
        let read = |mark, text: &str| typed_with(mark, || parse_decimal(text, 15, 10));
        assert_eq!(
            read(DecimalMark::Comma, "1299,50").unwrap(),
            Decimal::new(129_950, 2)
        );
        assert_eq!(
            read(DecimalMark::Comma, "-2,5").unwrap(),
            Decimal::new(-25, 1)
        );
        assert_eq!(
            read(DecimalMark::Comma, "0.35").unwrap(),
            Decimal::new(35, 2),
            "the point too"
        );
        let key =
            |r: Result<Decimal, String>| r.unwrap_err().split(':').next().unwrap().to_string();
        assert_eq!(
            key(read(DecimalMark::Comma, "1.299,50")),
            "errors.thousandsSeparator"
        );
        assert_eq!(
            key(read(DecimalMark::Point, "1,299.50")),
            "errors.thousandsSeparator"
        );
        assert_eq!(
            key(read(DecimalMark::Point, "12,5")),
            "errors.thousandsSeparator"
        );
        assert_eq!(
            key(read(DecimalMark::Comma, "1,2,3")),
            "errors.invalidDecimal"
        );
        assert_eq!(
            key(parse_decimal("12,5", 15, 10)),
            "errors.invalidDecimal",
            "the API as before"
        );
        assert_eq!(parse_decimal("12.5", 15, 10).unwrap(), Decimal::new(125, 1));
    }
    use proptest::prelude::*;

    #[test]
    fn decimals_are_plain_strings_only() {
        for bad in [
            "", "1e3", "+1", "1,5", " 1", "1.", ".5", "1.2.3", "0x10", "NaN", "--1",
        ] {
            assert!(Amount::from_str(bad).is_err(), "{bad:?} should be refused");
        }
        assert_eq!(Amount::from_str("1.50").unwrap().get().to_string(), "1.5");
        assert_eq!(Amount::from_str("0").unwrap().get().to_string(), "0");
        assert_eq!(Amount::from_str("-0").unwrap().get().to_string(), "0");
        assert!(
            Amount::from_str("-1")
                .unwrap_err()
                .starts_with("errors.negative")
        );
        assert!(
            PositiveAmount::from_str("0")
                .unwrap_err()
                .starts_with("errors.notPositive")
        );
        assert!(
            Amount::from_str("1234567890123456")
                .unwrap_err()
                .starts_with("errors.outOfRange")
        );
        assert!(
            Amount::from_str("1.12345678901")
                .unwrap_err()
                .starts_with("errors.outOfRange")
        );
        let too_whole = Grams::from_str("1234567890123").unwrap_err();
        assert!(
            too_whole.starts_with("errors.outOfRange"),
            "13 whole digits"
        );
        let too_fine = Grams::from_str("1.1234567").unwrap_err();
        assert!(
            too_fine.starts_with("errors.outOfRange"),
            "7 fractional digits"
        );
        let widest = Grams::from_str("123456789012.123456").unwrap();
        assert_eq!(widest.get().to_string(), "123456789012.123456");
    }

    #[test]
    fn colours_are_upper_cased_and_checked() {
        assert_eq!(HexColor::from_str("#ff00aa").unwrap().get(), "#FF00AA");
        for bad in ["ff00aa", "#ff00a", "#ff00aag", "#GG0000", ""] {
            assert!(
                HexColor::from_str(bad)
                    .unwrap_err()
                    .starts_with("errors.invalidColor")
            );
        }
    }

    #[test]
    fn texts_and_codes() {
        assert_eq!(Name::from_str("  Prusa  ").unwrap().get(), "Prusa");
        assert!(
            Name::from_str("   ")
                .unwrap_err()
                .starts_with("errors.required")
        );
        assert!(
            Password::from_str("short")
                .unwrap_err()
                .starts_with("errors.passwordTooShort")
        );
        assert!(Password::from_str("twelve chars").is_ok());
        assert_eq!(Currency::from_str("eur").unwrap().get(), "EUR");
        assert!(Locale::from_str("fr-FR").is_err());
        assert_eq!(
            Iban::from_str("de89 3704 0044 0532 0130 00").map(|i| i.get().clone()),
            Ok("DE89370400440532013000".to_owned())
        );
        assert!(Iban::from_str("DE88370400440532013000").is_err());
        assert!(Iban::from_str("GB82WEST12345698765432").is_ok());
        assert!(Iban::from_str("DE89").is_err());
        assert!(Bic::from_str("cobadeffxxx").is_ok());
        for good in [
            "DE 123 456 789",
            "atu12345678",
            "FR0A123456789",
            "CHE-123.456.789 MWST",
            "NL123456789B01",
            "IE1+23456X",
            "EL123456789",
            "RO12",
        ] {
            assert!(VatId::from_str(good).is_ok(), "{good}");
        }
        for bad in [
            "DE12345678",
            "AT12345678",
            "GR123456789",
            "US123456789",
            "NL123456789",
            "D1",
        ] {
            assert!(VatId::from_str(bad).is_err(), "{bad}");
        }
        let pattern = vat_id_pattern();
        assert!(pattern.contains("[Dd][Ee]([0-9][0-9]"), "{pattern}");
        assert!(Bic::from_str("COBADEF").is_err());
        assert!(Day::from_str("2026-02-29").is_err());
        assert!(Email::from_str("a@b").is_ok());
        assert!(Email::from_str("a b@c").is_err());
        assert!(Email::from_str("@c").is_err());
    }

    proptest! {
        #[test]
        fn any_canonical_decimal_round_trips(whole in 0u64..1_000_000_000_000, frac in 0u32..10_000_000, places in 0usize..8) {
            let text = if places == 0 { whole.to_string() } else {
                let f = format!("{frac:07}");
                format!("{whole}.{}", &f[..places.min(7)])
            };
            let parsed = Amount::from_str(&text).unwrap().into_inner();
            prop_assert_eq!(parsed, Decimal::from_str(&text).unwrap());
            let canonical = parsed.to_string();
            prop_assert_eq!(Amount::from_str(&canonical).unwrap().into_inner(), parsed);
            prop_assert!(!canonical.contains('e'));
            prop_assert!(!(canonical.contains('.') && canonical.ends_with('0')));
        }

        #[test]
        fn exponents_and_signs_never_parse(mantissa in 1u32..1000, exp in 0u32..20) {
            let exponent_form = format!("{mantissa}e{exp}");
            let plus_form = format!("+{mantissa}");
            prop_assert!(Amount::from_str(&exponent_form).is_err());
            prop_assert!(Amount::from_str(&plus_form).is_err());
        }
    }

    proptest! {
        #[test]
        fn every_moment_the_schema_admits_parses(
            text in proptest::string::string_regex(&format!("({DATE_PATTERN}){MOMENT_PATTERN}")).unwrap()
        ) {
            prop_assert!(Moment::from_str(&text).is_ok(), "{text}");
        }
    }

    #[test]
    fn a_moment_is_read_with_its_offset() {
        let at = |text: &str| Moment::from_str(text).map(|m| m.get().0);
        assert_eq!(at("2026-11-20T11:00:00+01:00"), at("2026-11-20T10:00:00Z"));
        assert_eq!(at("2026-11-20T10:00:00.75Z"), Ok(1_795_168_800));
        assert!(at("2026-11-20T10:00:00").is_err(), "no offset");
        assert!(at("20.11.2026 10:00").is_err());
    }
}
