use super::*;
use crate::agent::ask;
use crate::agent::browser::fake::{blank_capture, FakeBrowser, FakeTodoPage, Focus, Layout, Link};
use crate::agent::record::{Run, RunStatus, StepKind, StepStatus, TargetInfo};
use crate::agent::replay::cache::{self, Cache, CacheEntry, CachedAction, CachedRound, ElementKey};
use crate::describe::DescribeOptions;
use crate::model::{ChatMessage, ContentPart, ModelError, Usage};
use crate::model::{ChatReply, ModelClient, ModelConfig};
use crate::test_util::block_on;
use crate::vision;
use crate::vocab::actions::PlannedAction;
use std::cell::RefCell;

/// The todo page in a browser of fakes, as most tests drive it.
type TodoBrowser = FakeBrowser<FakeTodoPage>;

fn todo_browser() -> TodoBrowser {
    FakeBrowser::new(FakeTodoPage::default())
}

/// Answers from a script and keeps what it was sent.
/// The check after "done" (recognised by its system prompt) is answered from its own script,
/// `yes` when that is empty, and kept apart from the planning calls.
struct ScriptedModel {
    replies: RefCell<Vec<Result<String, ModelError>>>,
    seen: RefCell<Vec<Vec<ChatMessage>>>,
    verdicts: RefCell<Vec<Result<String, ModelError>>>,
    checks: RefCell<Vec<Vec<ChatMessage>>>,
}

impl ScriptedModel {
    fn new(replies: Vec<Result<&str, ModelError>>) -> Self {
        ScriptedModel {
            replies: RefCell::new(replies.into_iter().rev().map(|r| r.map(str::to_string)).collect()),
            seen: RefCell::new(vec![]),
            verdicts: RefCell::new(vec![]),
            checks: RefCell::new(vec![]),
        }
    }
    /// The check's answers, in order.
    fn checking(self, verdicts: Vec<Result<&str, ModelError>>) -> Self {
        *self.verdicts.borrow_mut() = verdicts.into_iter().rev().map(|r| r.map(str::to_string)).collect();
        self
    }
    fn image_url(&self, call: usize) -> Option<String> {
        self.seen.borrow()[call][1].content.iter().find_map(|p| match p {
            ContentPart::ImageUrl { image_url } => Some(image_url.url.clone()),
            _ => None,
        })
    }
    fn user_text(&self, call: usize) -> String {
        match &self.seen.borrow()[call][1].content[0] {
            ContentPart::Text { text } => text.clone(),
            _ => panic!("text first"),
        }
    }
}

impl ModelClient for ScriptedModel {
    async fn complete(&self, _c: &ModelConfig, messages: &[ChatMessage]) -> Result<ChatReply, ModelError> {
        let is_check =
            matches!(&messages[0].content[0], ContentPart::Text { text } if text == crate::prompt::CHECK_PROMPT);
        let next = if is_check {
            self.checks.borrow_mut().push(messages.to_vec());
            self.verdicts.borrow_mut().pop().unwrap_or_else(|| Ok("yes: the page shows it".into()))
        } else {
            self.seen.borrow_mut().push(messages.to_vec());
            self.replies.borrow_mut().pop().expect("the loop asked more often than scripted")
        };
        next.map(|content| ChatReply {
            usage: Some(Usage { prompt_tokens: 100, completion_tokens: 10, estimated: false }),
            ..ChatReply::text(content)
        })
    }
}

fn config() -> ModelConfig {
    ModelConfig { base_url: "http://127.0.0.1:1/v1".into(), model: "mock".into(), ..Default::default() }
}

/// Done, with nothing left to do.
const SAID_DONE: &str = r#"{"thought":"that was it","actions":[],"done":true}"#;

const ADD_MILK: &str = r#"```json
{"thought":"type into the todo input","actions":[{"type":"Input","target":1,"value":"buy milk"},{"type":"KeyPress","key":"Enter"}],"done":true}
```"#;

mod caching;
mod flows;
/// A plan's later actions aim at where their element is when they run, not where the plan saw it.
mod later_actions;
mod loop_basics;
mod memory;
mod page_changes;
mod page_dialogs;
mod planner;
mod recorded_descriptions;
mod secret_fields;
mod secrets;
mod tasks;
mod trajectories;
