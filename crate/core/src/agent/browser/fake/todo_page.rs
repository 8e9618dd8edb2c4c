//! A todo page: an input that adds an item on Enter, its list, a "Load more" button below the
//! fold, and whatever else a test puts on it (a link, a password field, a frame, a size list).

use crate::action::InputCommand;
use crate::agent::browser::{ChosenOption, FocusedField, Observation, PageError, PageHost, Reach, Settled};
use crate::describe::{describe, DescribeOptions};
use crate::snapshot::test_support::Builder;
use crate::vision::{self, Capture};
use crate::vocab::geometry::Rect;

/// A todo page that gains an item when Enter is pressed after text was inserted.
pub struct FakeTodoPage {
    pub typed: String,
    pub items: Vec<String>,
    /// The capture observe() hands over (PNG bytes).
    pub capture: Vec<u8>,
    /// The page scrolls; a "Load more" button sits below the fold at y = 1500.
    pub scroll_y: f64,
    pub reveals: usize,
    /// Files given to a file chooser.
    pub uploaded: Vec<String>,
    /// The page's address; a tap on `link` (when there is one) goes to its address.
    pub url: String,
    pub link: Option<Link>,
    /// Show a password field below the list.
    pub password: bool,
    /// What was clicked last (what has focus), and what the host says of it.
    pub focus: Focus,
    /// The origin of the frame the focus is in; empty: the page's own.
    pub focus_frame: String,
    /// The host cannot see where focus is.
    pub focus_hidden: bool,
    /// Selectors the todo input matches.
    pub todo_selectors: Vec<String>,
    /// What `settle` reports next.
    pub settled: Settled,
    /// The origin of a frame holding a password field, shown beside the list.
    pub frame: Option<String>,
    /// A "Far below" button several screens down, beyond an in-view read's margin.
    pub far_below: bool,
    /// How much of the page each `observe` read, in order.
    pub reads: Vec<Reach>,
    /// What the next click (a mouse press) does to the list, without leaving the page.
    pub on_click: Option<Layout>,
    /// A banner above the list, as tall as it is, pushing the list down.
    pub banner: f64,
    /// What the host reads for an element's locators (the same for every element).
    pub locator_data: Option<crate::describe::locators::LocatorData>,
    /// A size list (`<select>`: Small, Medium, Large) beside the todo input, and its choice.
    pub sizes: Option<u32>,
}

/// How a click changes the fake page's layout.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Layout {
    /// A banner this tall opens above the list: every item is numbered one later, and lower.
    Banner(f64),
    /// The list empties.
    Cleared,
}

/// A link on the fake page: where it leads and whether it opens a new tab.
pub struct Link {
    pub href: String,
    pub new_tab: bool,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Focus {
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
pub fn blank_capture() -> Vec<u8> {
    let img = image::RgbImage::from_pixel(1280, 800, image::Rgb([255, 255, 255]));
    vision::pipeline::encode(&img, vision::ImageFormat::Png).unwrap()
}

impl Default for FakeTodoPage {
    fn default() -> Self {
        FakeTodoPage {
            locator_data: None,
            sizes: None,
            typed: String::new(),
            items: vec![],
            capture: blank_capture(),
            scroll_y: 0.0,
            reveals: 0,
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
    pub fn read(&self, opts: &DescribeOptions) -> Observation {
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
        for c in commands {
            if c.params["type"] == "mousePressed" {
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
        Ok(())
    }

    async fn settle(&mut self) -> Result<Settled, PageError> {
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

    async fn choose_files(&mut self, _click: &[InputCommand], files: &[String]) -> Result<(), PageError> {
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
