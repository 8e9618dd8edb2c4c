//! What every kind of a run's work shares, the instruction loop's rounds and a single task
//! alike: the record being written, the settings, the page and the model behind them (the
//! model's configuration given once, here), and the screenshots handed to the host so far.

use super::browser::{Browser, Observation};
use super::error::RunError;
use super::options::RunOptions;
use super::record::{Run, Step, StepKind};
use super::replay::trajectory::Album;
use crate::model::{ChatMessage, ChatReply, ModelClient, ModelConfig};
use crate::vision::{self, ModelImage};

pub(crate) struct Context<'a, B, M, W> {
    pub run: &'a mut Run,
    pub options: &'a RunOptions,
    pub config: &'a ModelConfig,
    pub browser: &'a mut B,
    pub model: &'a M,
    pub album: Album,
    /// What this kind of work keeps besides: the loop's rounds and history, a task's hint.
    pub work: W,
}

impl<'a, B: Browser, M: ModelClient> Context<'a, B, M, ()> {
    pub fn new(
        run: &'a mut Run,
        options: &'a RunOptions,
        config: &'a ModelConfig,
        browser: &'a mut B,
        model: &'a M,
    ) -> Self {
        Context { run, options, config, browser, model, album: Album::default(), work: () }
    }
}

impl<B: Browser, M: ModelClient, W> Context<'_, B, M, W> {
    /// The same run, settings, page and model, for one piece of work (a flow's item, say).
    pub fn for_work<V>(&mut self, work: V) -> Context<'_, B, M, V> {
        Context {
            run: &mut *self.run,
            options: self.options,
            config: self.config,
            browser: &mut *self.browser,
            model: self.model,
            album: Album::default(),
            work,
        }
    }

    /// The screenshot as the model gets it (fitted to the family, marked), or why it was left out.
    pub fn model_image(&self, observation: &Observation) -> (Option<ModelImage>, Option<String>) {
        let mut image_options = self.options.image;
        if image_options.rule == vision::ImageRule::AsIs {
            image_options.rule = vision::ImageRule::for_family(self.config.family);
        }
        match observation.capture.as_ref().filter(|_| self.options.include_screenshot) {
            Some(capture) => match vision::model_image(capture, &observation.extraction, &image_options) {
                Ok(image) => (Some(image), None),
                Err(e) => (None, Some(format!("sent without a screenshot: {e}"))),
            },
            None => (None, None),
        }
    }

    /// The image's reference in the run. Kept before a model call sends the image: the host
    /// then sends the copy it holds for the record.
    pub fn keep_image(&mut self, image: &ModelImage) -> String {
        self.album.keep(self.browser, &image.data_url)
    }

    /// One model call, counted and priced on the run. Returns the text to parse and the step
    /// that records the call (the caller fills in its thought and action), or `None` when the
    /// person stopped the run meanwhile.
    pub async fn ask_model(
        &mut self,
        messages: &[ChatMessage],
        image_note: Option<String>,
    ) -> Result<Option<(String, Step)>, RunError> {
        let (config, prices) = (self.config, &self.options.prices);
        // Checked at the first call, not the start: a replay that never needs the model runs
        // without one configured.
        config.validate()?;
        let started = self.browser.now_ms();
        let reply = self.model.complete(config, messages).await;
        self.run.model_calls += 1;
        if self.browser.stop_requested() {
            return Ok(None);
        }
        let reply: ChatReply = reply?;
        if let Some(u) = &reply.usage {
            self.run.usage.add(u);
            self.run.cost = prices.cost(&config.model, &self.run.usage);
        }
        // Retries and a left-out screenshot are worth knowing; neither failed the step.
        let notes: Vec<String> = reply.notes.iter().cloned().chain(image_note).collect();
        let text = reply.parser_text();
        let step = Step {
            action: self.run.language.say("step.plan", &[]),
            duration_ms: self.browser.now_ms() - started,
            usage: reply.usage.clone(),
            cost: reply.usage.as_ref().and_then(|u| prices.cost(&config.model, u)),
            note: (!notes.is_empty()).then(|| notes.join("; ")),
            exchange: Some(self.album.exchange(self.browser, messages, &text)),
            ..Step::new(StepKind::Plan, started)
        };
        Ok(Some((text, step)))
    }
}
