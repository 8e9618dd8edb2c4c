//! What every kind of a run's work shares, the instruction loop's rounds and a single task
//! alike: the record being written, the settings, the page and the model behind them (the
//! model's configuration given once, here), and the screenshots handed to the host so far.

use super::browser::{Browser, Observation};
use super::error::RunError;
use super::options::RunOptions;
use super::record::{ModelRole, ModelUse, Run, Step, StepKind};
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

impl<'a, B: Browser, M: ModelClient, W> Context<'a, B, M, W> {
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
        self.ask_model_as(ModelRole::Actor, messages, image_note).await
    }

    /// The planning model when the run has one.
    pub fn planner(&self) -> Option<&'a ModelConfig> {
        self.options.planner.as_ref()
    }

    /// [`Self::ask_model`] of one of the run's models. With a planning model the call is
    /// counted and priced per model as well (`Run::models`), and a failure names the model.
    pub async fn ask_model_as(
        &mut self,
        role: ModelRole,
        messages: &[ChatMessage],
        image_note: Option<String>,
    ) -> Result<Option<(String, Step)>, RunError> {
        let split = self.planner().is_some();
        let config = match (role, self.planner()) {
            (ModelRole::Planner, Some(planner)) => planner,
            _ => self.config,
        };
        let prices = &self.options.prices;
        let named = |error: crate::model::ModelError| -> RunError {
            match (split, role) {
                (false, _) => RunError::Model(error),
                (true, ModelRole::Planner) => RunError::PlannerModel { model: config.model.clone(), error },
                (true, ModelRole::Actor) => RunError::ActorModel { model: config.model.clone(), error },
            }
        };
        // Checked at the first call, not the start: a replay that never needs the model runs
        // without one configured.
        config.validate().map_err(named)?;
        let started = self.browser.now_ms();
        let reply = self.model.complete(config, messages).await;
        self.run.model_calls += 1;
        if self.browser.stop_requested() {
            return Ok(None);
        }
        let reply: ChatReply = reply.map_err(named)?;
        if let Some(u) = &reply.usage {
            self.run.usage.add(u);
            if split {
                self.count_for(role, config, u);
            } else {
                self.run.cost = prices.cost(&config.model, &self.run.usage);
            }
        } else if split {
            self.count_for(role, config, &crate::model::Usage::default());
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
            role: split.then_some(role),
            ..Step::new(StepKind::Plan, started)
        };
        Ok(Some((text, step)))
    }

    /// One call of a model of a two-model run, added to that model's share; the run's cost is
    /// the sum of what each model's own price makes of its tokens.
    fn count_for(&mut self, role: ModelRole, config: &ModelConfig, usage: &crate::model::Usage) {
        let models = &mut self.run.models;
        let at = match models.iter().position(|m| m.role == role && m.model == config.model) {
            Some(at) => at,
            None => {
                models.push(ModelUse {
                    role,
                    model: config.model.clone(),
                    calls: 0,
                    usage: crate::model::Usage::default(),
                    cost: None,
                });
                // The planner first: the panel and the report list them in this order.
                crate::order::sort_by_key(models, |m| m.role != ModelRole::Planner);
                models.iter().position(|m| m.role == role && m.model == config.model).unwrap_or_default()
            }
        };
        let share = &mut models[at];
        share.calls += 1;
        share.usage.add(usage);
        share.cost = self.options.prices.cost(&share.model, &share.usage);
        let priced: Vec<f64> = models.iter().filter_map(|m| m.cost).collect();
        self.run.cost = (!priced.is_empty()).then(|| priced.iter().sum());
    }
}
