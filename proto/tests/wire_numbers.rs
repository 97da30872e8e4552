//! Wire compatibility with older peers: every field number keeps its type for good.
//!
//! `wire_numbers.txt` records, for every message of the protocol, each field's number, name
//! and type, and the numbers it reserves. The messages as built must keep each recorded
//! number's type (a rename is fine, a retype is not: an older peer would misread the
//! bytes), reserve every recorded number they no longer use, and never reuse a reserved
//! one. Adding fields is fine; record them with
//! `HAKASE_RECORD_WIRE=1 cargo test -p hakase-proto --test proto_tests wire_numbers::`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use prost::Message;
use prost_types::field_descriptor_proto::{Label, Type};
use prost_types::{DescriptorProto, FileDescriptorSet};

/// One message's numbers: each field's (name, type), and the reserved numbers.
#[derive(Debug, Default, PartialEq, Eq)]
struct Numbers {
    fields: BTreeMap<i32, (String, String)>,
    reserved: BTreeSet<i32>,
}

/// Every message by full name.
type Wire = BTreeMap<String, Numbers>;

fn record_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/wire_numbers.txt")
}

/// The messages as this build has them, from the descriptor set protoc wrote.
fn built() -> Wire {
    let set = FileDescriptorSet::decode(hakase_proto::FILE_DESCRIPTOR_SET).expect("descriptors");
    let mut wire = Wire::new();
    for file in &set.file {
        for message in &file.message_type {
            add_message(&mut wire, file.package(), message);
        }
    }
    wire
}

fn add_message(wire: &mut Wire, scope: &str, message: &DescriptorProto) {
    let name = format!("{scope}.{}", message.name());
    let mut numbers = Numbers::default();
    for field in &message.field {
        let mut kind = match field.r#type() {
            Type::Message | Type::Enum => field.type_name().to_string(),
            scalar => scalar
                .as_str_name()
                .trim_start_matches("TYPE_")
                .to_lowercase(),
        };
        if field.label() == Label::Repeated {
            kind = format!("repeated {kind}");
        }
        numbers
            .fields
            .insert(field.number(), (field.name().to_string(), kind));
    }
    for range in &message.reserved_range {
        // Descriptor ranges are half-open.
        numbers.reserved.extend(range.start()..range.end());
    }
    for nested in &message.nested_type {
        add_message(wire, &name, nested);
    }
    wire.insert(name, numbers);
}

/// The record as text: `MESSAGE NUMBER NAME TYPE` per field, `MESSAGE NUMBER reserved` per
/// reserved number.
fn render(wire: &Wire) -> String {
    let mut text = String::new();
    for (message, numbers) in wire {
        for (number, (name, kind)) in &numbers.fields {
            text.push_str(&format!("{message} {number} {name} {kind}\n"));
        }
        for number in &numbers.reserved {
            text.push_str(&format!("{message} {number} reserved\n"));
        }
    }
    text
}

fn parse(text: &str) -> Wire {
    let mut wire = Wire::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let mut words = line.splitn(4, ' ');
        let (Some(message), Some(number), Some(name)) = (words.next(), words.next(), words.next())
        else {
            panic!("a bad line in wire_numbers.txt: {line:?}");
        };
        let number: i32 = number.parse().expect("a field number");
        let numbers = wire.entry(message.to_string()).or_default();
        match words.next() {
            None if name == "reserved" => {
                numbers.reserved.insert(number);
            }
            Some(kind) => {
                numbers
                    .fields
                    .insert(number, (name.to_string(), kind.to_string()));
            }
            None => panic!("a field without a type in wire_numbers.txt: {line:?}"),
        }
    }
    wire
}

/// What an older peer would misread in `now` given the `recorded` messages, as sentences.
fn breaks(recorded: &Wire, now: &Wire) -> Vec<String> {
    let mut found = Vec::new();
    for (message, was) in recorded {
        let Some(is) = now.get(message) else {
            continue;
        };
        for (number, (name, kind)) in &was.fields {
            match is.fields.get(number) {
                Some((_, now_kind)) if now_kind != kind => found.push(format!(
                    "{message} field {number} ({name}) was {kind}, is {now_kind}: give the new \
                     type a new number and reserve {number}"
                )),
                Some(_) => {}
                None if is.reserved.contains(number) => {}
                None => found.push(format!(
                    "{message} field {number} ({name}) is gone without `reserved {number};`"
                )),
            }
        }
        for number in &was.reserved {
            if let Some((name, _)) = is.fields.get(number) {
                found.push(format!(
                    "{message} reuses the reserved number {number} for {name}"
                ));
            } else if !is.reserved.contains(number) {
                found.push(format!("{message} no longer reserves {number}"));
            }
        }
    }
    found
}

#[test]
fn no_field_number_changes_its_type() {
    let now = built();
    let recorded = parse(&std::fs::read_to_string(record_path()).expect("wire_numbers.txt"));
    let found = breaks(&recorded, &now);
    assert!(found.is_empty(), "{}", found.join("\n"));
    // Recording adds the new fields; it never rewrites history (a break fails first).
    if std::env::var_os("HAKASE_RECORD_WIRE").is_some() {
        std::fs::write(record_path(), render(&now)).expect("writing wire_numbers.txt");
    }
}

/// Every field is recorded, so that a later retype of it is caught too.
#[test]
fn every_field_is_recorded() {
    if std::env::var_os("HAKASE_RECORD_WIRE").is_some() {
        return; // being recorded by the test above
    }
    let recorded = parse(&std::fs::read_to_string(record_path()).expect("wire_numbers.txt"));
    let now = built();
    for (message, numbers) in &now {
        for (number, (name, _)) in &numbers.fields {
            assert!(
                recorded
                    .get(message)
                    .is_some_and(|r| r.fields.contains_key(number)),
                "{message} field {number} ({name}) is not in wire_numbers.txt: record it with \
                 HAKASE_RECORD_WIRE=1"
            );
        }
    }
}

/// The check itself: a retype, a reuse of a reserved number and an unreserved removal are
/// each caught; an added field and a rename are not breaks.
#[test]
fn the_check_catches_each_kind_of_break() {
    let recorded =
        parse("m.A 1 name string\nm.A 2 options .m.Options\nm.A 3 reserved\nm.A 4 count uint64\n");
    let fine = parse(
        "m.A 1 title string\nm.A 2 options .m.Options\nm.A 3 reserved\nm.A 4 count uint64\n\
         m.A 5 extra bool\n",
    );
    assert_eq!(breaks(&recorded, &fine), Vec::<String>::new());
    let broken = parse("m.A 1 name string\nm.A 2 options string\nm.A 3 reused bool\n");
    assert_eq!(
        breaks(&recorded, &broken),
        [
            "m.A field 2 (options) was .m.Options, is string: give the new type a new number \
             and reserve 2",
            "m.A field 4 (count) is gone without `reserved 4;`",
            "m.A reuses the reserved number 3 for reused",
        ]
    );
}
