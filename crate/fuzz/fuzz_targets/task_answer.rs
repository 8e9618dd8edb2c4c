//! Replies to the one-shot AI tasks (aiLocate, aiQuery/aiBoolean/aiNumber/aiString, aiAssert):
//! any text is an answer or an error, and an answer has the type the task asked for.
#![no_main]
use libfuzzer_sys::fuzz_target;
use sightline::parse::answer::{parse_answer, parse_located, parse_verdict, Expect, Located};

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    if let Ok(Located::Element { number, .. }) = parse_located(text) {
        let _ = number;
    }
    let expect = [Expect::Any, Expect::Boolean, Expect::Number, Expect::Text][sel as usize % 4];
    if let Ok(answer) = parse_answer(text, expect) {
        let data = &answer.data;
        match expect {
            Expect::Any => assert!(!data.is_null(), "a null answer"),
            Expect::Boolean => assert!(data.is_boolean(), "aiBoolean answered {data}"),
            Expect::Number => assert!(data.as_f64().is_some_and(f64::is_finite), "aiNumber answered {data}"),
            Expect::Text => assert!(data.is_string(), "aiString answered {data}"),
        }
    }
    let _ = parse_verdict(text);
});
