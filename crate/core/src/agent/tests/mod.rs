use super::*;
use crate::action::InputCommand;
use crate::agent::ask;
use crate::agent::record::{Run, RunStatus, StepKind, StepStatus, TargetInfo};
use crate::agent::replay::cache::{self, Cache, CacheEntry, CachedAction, CachedRound, ElementKey};
use crate::describe::{describe, DescribeOptions};
use crate::model::{ChatMessage, ContentPart, ModelError, Usage};
use crate::model::{ChatReply, ModelClient, ModelConfig};
use crate::snapshot::test_support::Builder;
use crate::test_util::block_on;
use crate::vision::{self, Capture};
use crate::vocab::actions::PlannedAction;
use crate::vocab::geometry::Rect;
use std::cell::RefCell;

/// A todo page that gains an item when Enter is pressed after text was inserted.
struct FakeTodoPage {
    typed: String,
    items: Vec<String>,
    dispatched: Vec<InputCommand>,
    reports: usize,
    clock: f64,
    stop_after_dispatches: Option<usize>,
    /// The capture observe() hands over (PNG bytes).
    capture: Vec<u8>,
    /// The page scrolls; a "Load more" button sits below the fold at y = 1500.
    scroll_y: f64,
    reveals: usize,
    /// Answers the person gives, last first; and the questions they were asked.
    answers: Vec<ask::Answer>,
    asked: Vec<ask::Question>,
    /// A dialog the next click (a mouse press) opens, and one the next wait for the page opens.
    dialog_on_click: Option<ask::PageDialog>,
    dialog_on_settle: Option<ask::PageDialog>,
    /// The dialog the page holds open, and how each was answered (OK?, prompt text).
    open: Option<ask::PageDialog>,
    dialog_answers: Vec<(bool, Option<String>)>,
    /// What the run asked the host to keep.
    cache: cache::Cache,
    /// Screenshots handed over to keep with the run, by position (reference `img-N`).
    images: Vec<String>,
    /// Files given to a file chooser.
    uploaded: Vec<String>,
    /// The page's address; a tap on `link` (when there is one) goes to its address.
    url: String,
    link: Option<Link>,
    /// Show a password field below the list.
    password: bool,
    /// What was clicked last (what has focus), and what the host says of it.
    focus: Focus,
    /// The origin of the frame the focus is in; empty: the page's own.
    focus_frame: String,
    /// The host cannot see where focus is.
    focus_hidden: bool,
    /// Selectors the todo input matches.
    todo_selectors: Vec<String>,
    /// What `settle` reports next.
    settled: Settled,
    /// The origin of a frame holding a password field, shown beside the list.
    frame: Option<String>,
    /// A "Far below" button several screens down, beyond an in-view read's margin.
    far_below: bool,
    /// How much of the page each `observe` read, in order.
    reads: Vec<Reach>,
    /// What the next click (a mouse press) does to the list, without leaving the page.
    on_click: Option<Layout>,
    /// A banner above the list, as tall as it is, pushing the list down.
    banner: f64,
    /// What the host reads for an element's locators (the same for every element).
    locator_data: Option<crate::describe::locators::LocatorData>,
    /// A size list (`<select>`: Small, Medium, Large) beside the todo input, and its choice.
    sizes: Option<u32>,
}

/// How a click changes the fake page's layout.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Layout {
    /// A banner this tall opens above the list: every item is numbered one later, and lower.
    Banner(f64),
    /// The list empties.
    Cleared,
}

/// A link on the fake page: where it leads and whether it opens a new tab.
struct Link {
    href: String,
    new_tab: bool,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Focus {
    Nothing,
    Todo,
    Password,
}

const TODO_BOX: Rect = Rect { x: 100.0, y: 100.0, width: 400.0, height: 40.0 };
const PASSWORD_BOX: Rect = Rect { x: 100.0, y: 600.0, width: 400.0, height: 40.0 };
const LINK_BOX: Rect = Rect { x: 600.0, y: 100.0, width: 120.0, height: 30.0 };
const SIZES_BOX: Rect = Rect { x: 600.0, y: 200.0, width: 120.0, height: 30.0 };
const SIZES: [&str; 3] = ["Small", "Medium", "Large"];

/// A 1280 × 800 white PNG, as CDP would return it (its base64 decoded).
fn blank_capture() -> Vec<u8> {
    let img = image::RgbImage::from_pixel(1280, 800, image::Rgb([255, 255, 255]));
    vision::pipeline::encode(&img, vision::ImageFormat::Png).unwrap()
}

impl FakeTodoPage {
    fn new() -> Self {
        FakeTodoPage {
            locator_data: None,
            sizes: None,
            typed: String::new(),
            items: vec![],
            dispatched: vec![],
            reports: 0,
            clock: 0.0,
            stop_after_dispatches: None,
            capture: blank_capture(),
            scroll_y: 0.0,
            reveals: 0,
            answers: vec![],
            asked: vec![],
            dialog_on_click: None,
            dialog_on_settle: None,
            open: None,
            dialog_answers: vec![],
            cache: cache::Cache::default(),
            images: vec![],
            uploaded: vec![],
            url: "http://test.local/".into(),
            link: None,
            password: false,
            focus: Focus::Nothing,
            focus_frame: String::new(),
            focus_hidden: false,
            todo_selectors: vec![],
            settled: Settled::default(),
            frame: None,
            far_below: false,
            reads: vec![],
            on_click: None,
            banner: 0.0,
        }
    }
}

impl FakeTodoPage {
    /// The page as read with `opts`.
    fn read(&self, opts: &DescribeOptions) -> Observation {
        let mut b = Builder::new();
        let body = b.el(None, "body", &[], Rect::new(0.0, 0.0, 1280.0, 800.0));
        b.snap.url = self.url.clone();
        b.el(Some(body), "input", &[("placeholder", "What needs to be done?")], TODO_BOX);
        if self.banner > 0.0 {
            let p = b.el(Some(body), "p", &[], Rect::new(100.0, 150.0, 400.0, self.banner));
            b.text(p, "Saved", Rect::new(100.0, 150.0, 400.0, self.banner));
        }
        for (i, item) in self.items.iter().enumerate() {
            let at = Rect::new(100.0, 150.0 + self.banner + 40.0 * i as f64, 400.0, 40.0);
            let li = b.el(Some(body), "li", &[], at);
            b.text(li, item, at);
        }
        let more = b.el(Some(body), "button", &[], Rect::new(100.0, 1500.0 - self.scroll_y, 120.0, 30.0));
        b.text(more, "Load more", Rect::new(100.0, 1500.0 - self.scroll_y, 120.0, 30.0));
        if self.far_below {
            let far = Rect::new(100.0, 5000.0 - self.scroll_y, 120.0, 30.0);
            let button = b.el(Some(body), "button", &[], far);
            b.text(button, "Far below", far);
        }
        if let Some(link) = &self.link {
            let a = b.el(Some(body), "a", &[("href", link.href.as_str())], LINK_BOX);
            b.text(a, "Elsewhere", LINK_BOX);
        }
        if self.password {
            b.el(Some(body), "input", &[("type", "password"), ("name", "pw")], PASSWORD_BOX);
        }
        if self.sizes.is_some() {
            let select = b.el(Some(body), "select", &[("name", "size")], SIZES_BOX);
            let options = SIZES.iter().map(|s| s.to_string()).collect();
            b.node_mut(select).form = Some(crate::snapshot::FormState { options, ..Default::default() });
        }
        if let Some(origin) = &self.frame {
            let iframe = b.el(Some(body), "iframe", &[], Rect::new(700.0, 300.0, 300.0, 200.0));
            let html = b.el(Some(iframe), "html", &[], Rect::new(700.0, 300.0, 300.0, 200.0));
            b.node_mut(html).enters = Some(crate::snapshot::TreeKind::Frame);
            b.node_mut(html).origin = Some(origin.clone());
            b.el(
                Some(html),
                "input",
                &[("type", "password"), ("name", "card-pin")],
                Rect::new(710.0, 310.0, 200.0, 30.0),
            );
        }
        b.snap.viewport.scroll_y = self.scroll_y;
        Observation {
            capture: Some(Capture {
                bytes: self.capture.clone(),
                device_pixel_ratio: 1.0,
                origin: (0.0, 0.0),
                pixels: Default::default(),
            }),
            extraction: describe(&b.snap, opts),
        }
    }
}

impl PageHost for FakeTodoPage {
    async fn observe(&mut self, reach: &Reach) -> Result<Observation, PageError> {
        self.reads.push(reach.clone());
        Ok(self.read(&match reach {
            Reach::InView => DescribeOptions { viewport_only: true, ..Default::default() },
            Reach::Seeking(sought) => {
                DescribeOptions { viewport_only: true, sought: sought.clone(), ..Default::default() }
            }
            Reach::Locating => DescribeOptions { elsewhere: true, ..Default::default() },
            // As the host does: what is in view, and no capture.
            Reach::Aiming => {
                let read = self.read(&DescribeOptions { viewport_only: true, ..Default::default() });
                return Ok(Observation { capture: None, ..read });
            }
        }))
    }

    async fn dispatch(&mut self, commands: &[InputCommand]) -> Result<(), PageError> {
        assert!(self.open.is_none(), "input sent while a dialog is open");
        for c in commands {
            if c.params["type"] == "mousePressed" {
                if self.dialog_on_click.is_some() {
                    self.open = self.dialog_on_click.take();
                }
                match self.on_click.take() {
                    Some(Layout::Banner(height)) => self.banner = height,
                    Some(Layout::Cleared) => self.items.clear(),
                    None => {}
                }
                let (x, y) = (c.params["x"].as_f64().unwrap(), c.params["y"].as_f64().unwrap());
                self.focus = if TODO_BOX.contains(x, y) {
                    Focus::Todo
                } else if self.password && PASSWORD_BOX.contains(x, y) {
                    Focus::Password
                } else {
                    Focus::Nothing
                };
                if let Some(link) = self.link.as_ref().filter(|_| LINK_BOX.contains(x, y)) {
                    // Another page: the list is gone, and the host says where the run is now.
                    self.settled = Settled {
                        url_before: self.url.clone(),
                        url: link.href.clone(),
                        loaded: !link.new_tab,
                        followed_tab: link.new_tab,
                        dialogs: vec![],
                    };
                    self.url = link.href.clone();
                    self.link = None;
                    self.items.clear();
                }
            }
            if c.method == "Input.insertText" {
                self.typed = c.params["text"].as_str().unwrap().to_string();
            }
            if c.params["key"] == "Enter" && c.params["type"] == "keyDown" && !self.typed.is_empty() {
                self.items.push(std::mem::take(&mut self.typed));
            }
        }
        self.dispatched.extend_from_slice(commands);
        Ok(())
    }

    async fn settle(&mut self) -> Result<Settled, PageError> {
        assert!(self.open.is_none(), "waited on a page that a dialog holds");
        self.clock += 5.0;
        self.open = self.dialog_on_settle.take();
        Ok(std::mem::take(&mut self.settled))
    }

    async fn focused_field(&mut self, selectors: &[String]) -> Result<FocusedField, PageError> {
        if self.focus_hidden {
            return Err(PageError::Failed("the focus is in a frame nested in another site's frame".into()));
        }
        let frame = if self.focus_frame.is_empty() {
            self.url.trim_end_matches('/').to_string()
        } else {
            self.focus_frame.clone()
        };
        let attrs = |pairs: &[(&str, &str)]| pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let (tag, attributes, editable, own): (&str, Vec<(String, String)>, bool, &[String]) = match self.focus {
            Focus::Nothing => ("body", vec![], false, &[]),
            Focus::Todo => ("input", attrs(&[("placeholder", "What needs to be done?")]), true, &self.todo_selectors),
            Focus::Password => ("input", attrs(&[("type", "password"), ("name", "pw")]), true, &[]),
        };
        Ok(FocusedField {
            frame_url: format!("{frame}/"),
            frame_origin: frame,
            tag: tag.into(),
            attributes,
            editable,
            matches: selectors.iter().map(|s| own.contains(s)).collect(),
        })
    }

    async fn locator_data(&mut self, _: &crate::describe::Element) -> Option<crate::describe::locators::LocatorData> {
        self.locator_data.clone()
    }

    async fn reveal(&mut self, element: &crate::describe::Element) -> Result<(), PageError> {
        self.reveals += 1;
        self.scroll_y += element.rect.y - 400.0;
        Ok(())
    }

    async fn choose_files(&mut self, click: &[InputCommand], files: &[String]) -> Result<(), PageError> {
        self.dispatched.extend_from_slice(click);
        self.uploaded.extend_from_slice(files);
        Ok(())
    }

    async fn choose(&mut self, element: &crate::describe::Element, index: u32) -> Result<ChosenOption, PageError> {
        assert_eq!(element.tag, "select");
        self.sizes = Some(index);
        let text = SIZES[index as usize].to_string();
        Ok(ChosenOption { value: text.to_lowercase(), text })
    }
}

impl TabHost for FakeTodoPage {}

impl DialogHost for FakeTodoPage {
    fn open_dialog(&mut self) -> Option<ask::PageDialog> {
        self.open.clone()
    }

    async fn answer_dialog(&mut self, accept: bool, prompt_text: Option<&str>) -> Result<(), PageError> {
        assert!(self.open.take().is_some(), "no dialog to answer");
        self.dialog_answers.push((accept, prompt_text.map(str::to_string)));
        Ok(())
    }
}

impl PersonHost for FakeTodoPage {
    async fn ask(&mut self, question: &ask::Question) -> Result<Option<ask::Answer>, PageError> {
        self.asked.push(question.clone());
        Ok(self.answers.pop())
    }
}

impl StoreHost for FakeTodoPage {
    fn report(&mut self, _run: &Run) {
        self.reports += 1;
    }

    fn remember(&mut self, entry: &cache::CacheEntry) {
        self.cache.put(entry.clone());
    }

    fn keep_image(&mut self, data_url: &str) -> String {
        self.images.push(data_url.to_string());
        format!("img-{}", self.images.len() - 1)
    }
}

impl ClockHost for FakeTodoPage {
    async fn wait(&mut self, ms: u32) {
        self.clock += ms as f64;
    }

    fn now_ms(&self) -> f64 {
        self.clock
    }

    fn stop_requested(&self) -> bool {
        self.stop_after_dispatches.is_some_and(|n| self.dispatched.len() >= n)
    }
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
