//! Node pairs from JSON: an array of pairs or of objects, or an object with
//! the node count and the list. A full parse by `serde_json` first, which
//! refuses an object with a key twice; then the pairs, each located at its
//! line.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashSet;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, Error as _, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::Value;

use super::{At, CliError, Input, LineCounter, PairSpec, Pairs};

/// A serde_json error as `FILE:LINE: …`, without serde_json's own
/// "at line L column C" suffix.
fn json_error(input: &Input, e: &serde_json::Error) -> CliError {
    let text = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let message = text.strip_suffix(&suffix).unwrap_or(&text);
    input
        .at(e.line().max(1))
        .line(format!("not valid JSON (column {}): {message}", e.column()))
}

/// Any JSON value, refused if one of its objects (at any depth) has a key
/// twice: serde_json would keep the last silently. The key goes to
/// `repeated`, and the error carries the position just after it.
struct DistinctKeys<'s> {
    repeated: &'s RefCell<Option<String>>,
}

impl<'de> DeserializeSeed<'de> for DistinctKeys<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for DistinctKeys<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq
            .next_element_seed(DistinctKeys {
                repeated: self.repeated,
            })?
            .is_some()
        {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        // Objects are small (a pair's two keys): a list, until it is not.
        let mut few: Vec<Cow<'de, str>> = Vec::new();
        let mut many: HashSet<Cow<'de, str>> = HashSet::new();
        while let Some(key) = map.next_key_seed(KeyText)? {
            let seen = if many.is_empty() && few.len() < 16 {
                let seen = few.contains(&key);
                if !seen {
                    few.push(key.clone());
                }
                seen
            } else {
                many.extend(few.drain(..));
                !many.insert(key.clone())
            };
            if seen {
                let message = format!("the key {key:?} appears twice");
                *self.repeated.borrow_mut() = Some(key.into_owned());
                return Err(A::Error::custom(message));
            }
            map.next_value_seed(DistinctKeys {
                repeated: self.repeated,
            })?;
        }
        Ok(())
    }
}

/// An object's key, borrowed from the text unless it has escapes.
struct KeyText;

impl<'de> DeserializeSeed<'de> for KeyText {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeyText {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_borrowed_str<E>(self, key: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(key))
    }

    fn visit_str<E>(self, key: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(key.to_owned()))
    }
}

pub fn read_pairs(input: &Input, spec: &PairSpec) -> Result<Pairs, CliError> {
    let text = input.text.as_str();
    // A full parse first, so that syntax errors and repeated keys carry
    // serde_json's position.
    let repeated = RefCell::new(None);
    let mut parser = serde_json::Deserializer::from_str(text);
    let checked = DistinctKeys {
        repeated: &repeated,
    }
    .deserialize(&mut parser)
    .and_then(|()| parser.end());
    if let Err(e) = checked {
        // Syntax errors come first, worded as serde_json's plain parse words
        // them (the walk above may word them differently).
        serde_json::from_str::<serde::de::IgnoredAny>(text).map_err(|e| json_error(input, &e))?;
        return Err(match repeated.take() {
            Some(key) => input.at(e.line().max(1)).field(
                &truncate(&key),
                "appears twice in one object; each key may appear once",
            ),
            None => json_error(input, &e),
        });
    }

    let [a, b] = spec.fields;
    let mut lines = LineCounter::new(text);
    let mut nodes = None;
    let items: Vec<&RawValue> = if text.trim_start().starts_with('[') {
        serde_json::from_str(text).map_err(|e| json_error(input, &e))?
    } else {
        let object: Vec<(String, &RawValue)> =
            serde_json::from_str::<std::collections::BTreeMap<String, &RawValue>>(text)
                .map_err(|e| json_error(input, &e))?
                .into_iter()
                .collect();
        let mut list = None;
        for (key, value) in object {
            let at = input.at(lines.line_of(value.get()));
            if key == spec.list_key {
                list = Some(
                    serde_json::from_str::<Vec<&RawValue>>(value.get())
                        .map_err(|_| at.field(&key, "expected an array"))?,
                );
            } else if key == "nodes" {
                let node_count = json_count(at, "nodes", value)?;
                nodes = Some((node_count, at.line));
            } else {
                return Err(at.field(
                    &key,
                    format!("unknown key; expected \"nodes\" or \"{}\"", spec.list_key),
                ));
            }
        }
        list.ok_or_else(|| {
            input.at(1).line(format!(
                "the JSON object has no \"{}\" array",
                spec.list_key
            ))
        })?
    };

    let mut pairs = Pairs {
        pairs: Vec::with_capacity(items.len()),
        lines: Vec::with_capacity(items.len()),
        nodes,
    };
    let shape = format!("[{a}, {b}] or {{\"{a}\": …, \"{b}\": …}}");
    for item in items {
        let line = lines.line_of(item.get());
        let at = input.at(line);
        let value: Value = serde_json::from_str(item.get()).map_err(|e| json_error(input, &e))?;
        let (first, second) = match &value {
            Value::Array(pair) if pair.len() == 2 => (&pair[0], &pair[1]),
            Value::Object(map) => {
                if let Some(key) = map.keys().find(|k| k.as_str() != a && k.as_str() != b) {
                    return Err(at.field(key, format!("unknown key; expected {shape}")));
                }
                let get = |name: &str| {
                    map.get(name)
                        .ok_or_else(|| at.field(name, format!("missing; expected {shape}")))
                };
                (get(a)?, get(b)?)
            }
            _ => return Err(at.line(format!("expected {shape}, found {}", truncate(item.get())))),
        };
        pairs
            .pairs
            .push((value_count(at, a, first)?, value_count(at, b, second)?));
        pairs.lines.push(line);
    }
    Ok(pairs)
}

/// A JSON value that must be a whole number 0 or more.
fn value_count(at: At<'_>, field: &str, value: &Value) -> Result<usize, CliError> {
    match value {
        Value::Number(n) => match n.as_u64() {
            Some(v) => usize::try_from(v)
                .map_err(|_| at.field(field, format!("{n} is too large for this machine"))),
            None if n.as_i64().is_some() => {
                Err(at.field(field, format!("{n} is negative; {field} must be 0 or more")))
            }
            None => Err(at.field(field, format!("{n} is not a whole number"))),
        },
        other => Err(at.field(
            field,
            format!("{} is not a number", truncate(&other.to_string())),
        )),
    }
}

fn json_count(at: At<'_>, field: &str, raw: &RawValue) -> Result<usize, CliError> {
    let value: Value = serde_json::from_str(raw.get())
        .map_err(|e| at.field(field, format!("not valid JSON: {e}")))?;
    value_count(at, field, &value)
}

/// At most 40 characters of `text`, for quoting input in a message.
fn truncate(text: &str) -> String {
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(40).collect();
    if chars.next().is_some() {
        format!("{head}…")
    } else {
        head
    }
}
