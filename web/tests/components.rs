//! The sandbox's components rendered by Yew in headless Chromium
//! (wasm-bindgen-test): each is given what the engine computed for a
//! built-in scenario and must show exactly those numbers; the whole page
//! reacts to a control. Run by `scripts/test.sh` (`sandbox_test`).

#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly

use std::cell::Cell;
use std::rc::Rc;

use compaction_core::thresholds::{ThresholdSettings, Thresholds};
use compaction_sandbox::app::{App, Readout, ReadoutProps};
use compaction_sandbox::context::{ContextView, ContextViewProps};
use compaction_sandbox::timeline::{evidence, owner_name, Flows, FlowsProps, StepList, StepListProps};
use compaction_scenarios::figures::grouped;
use compaction_scenarios::sandbox::{
    explore, scenario, scenario_reading, Exploration, Knobs, Moment, Outcome,
};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{Element, HtmlElement, HtmlInputElement, HtmlTextAreaElement};
use yew::{Callback, Renderer};

wasm_bindgen_test_configure!(run_in_browser);

/// A fresh element in the page to render into.
fn mount_point() -> Element {
    let document = web_sys::window().unwrap().document().unwrap();
    let div = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&div).unwrap();
    div
}

/// Lets Yew's scheduler render (it runs after the current task), and the
/// panels off screen catch up (in the task after a frame, a panel inside
/// another one frame later): a frame and three tasks at a time, until the
/// page's DOM stays the same over two of those.
async fn settle() {
    let body = || web_sys::window().unwrap().document().unwrap().body().unwrap();
    let mut last = None;
    let mut quiet = 0;
    for _ in 0..40 {
        let frame = js_sys::Promise::new(&mut |resolve, _| {
            web_sys::window()
                .unwrap()
                .request_animation_frame(&resolve)
                .unwrap();
        });
        wasm_bindgen_futures::JsFuture::from(frame).await.unwrap();
        for _ in 0..3 {
            let promise = js_sys::Promise::new(&mut |resolve, _| {
                web_sys::window()
                    .unwrap()
                    .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0)
                    .unwrap();
            });
            wasm_bindgen_futures::JsFuture::from(promise).await.unwrap();
        }
        let now = body().inner_html();
        if last.as_ref() == Some(&now) {
            quiet += 1;
            if quiet == 2 {
                return;
            }
        } else {
            quiet = 0;
        }
        last = Some(now);
    }
}

/// Opens the engine's evidence drawer, as a visitor does: closed (newcomer
/// mode), it holds no steps table.
async fn open_evidence(root: &Element) {
    assert_eq!(
        count(root, "details.evidence table.steps"),
        0,
        "a closed drawer holds no table"
    );
    root.query_selector("details.evidence")
        .unwrap()
        .expect("the evidence drawer")
        .set_attribute("open", "")
        .unwrap();
    settle().await;
}

fn count(root: &Element, selector: &str) -> u32 {
    root.query_selector_all(selector).unwrap().length()
}

fn text(root: &Element) -> String {
    root.text_content().unwrap_or_default()
}

/// compact-analysis as the page first shows it, and its `/compact`.
fn compact_analysis() -> (Exploration, Moment) {
    let s = scenario("compact-analysis", 0).unwrap();
    let e = explore(&s, &Knobs::of(&s)).unwrap();
    let m = e
        .moments
        .iter()
        .find(|m| m.frame.kind == "compact")
        .unwrap()
        .clone();
    (e, m)
}

#[wasm_bindgen_test]
async fn step_list_shows_every_step_of_the_engine_and_reports_a_pick() {
    let (_, m) = compact_analysis();
    let steps = m.frame.steps.clone();
    assert!(steps.len() >= 5, "a /compact takes several steps");
    let picked = Rc::new(Cell::new(None));
    let on_pick = {
        let picked = picked.clone();
        Callback::from(move |i: Option<usize>| picked.set(i))
    };
    let root = mount_point();
    Renderer::<StepList>::with_root_and_props(
        root.clone(),
        StepListProps {
            moment: m.into(),
            current: Some(1),
            on_pick,
        },
    )
    .render();
    settle().await;
    assert_eq!(count(&root, "tbody tr") as usize, steps.len());
    let shown = text(&root);
    for s in &steps {
        assert!(shown.contains(s.rule), "rule {} shown", s.rule);
        assert!(shown.contains(&s.reason), "reason shown: {}", s.reason);
    }
    assert_eq!(
        count(&root, "tr[aria-current=step]"),
        1,
        "the current step is marked in text, not only colour"
    );
    let third: HtmlElement = root
        .query_selector("tbody tr:nth-child(3) button")
        .unwrap()
        .unwrap()
        .dyn_into()
        .unwrap();
    third.click();
    assert_eq!(picked.get(), Some(2));
}

#[wasm_bindgen_test]
async fn flows_light_the_stages_of_the_steps_they_are_given() {
    let (_, m) = compact_analysis();
    let root = mount_point();
    Renderer::<Flows>::with_root_and_props(
        root.clone(),
        FlowsProps {
            steps: m.frame.steps.clone(),
            compaction: true,
            moment: m.clone().into(),
        },
    )
    .render();
    settle().await;
    assert_eq!(
        count(&root, "figure.flow"),
        4,
        "the cascade and seed 002's three diagrams"
    );
    let lit = count(&root, "li.lit[aria-current=step]");
    assert!(lit >= 4, "a whole /compact lights its stages: {lit}");
    // Without steps nothing is lit; without a compaction only the cascade shows.
    let quiet = mount_point();
    Renderer::<Flows>::with_root_and_props(
        quiet.clone(),
        FlowsProps {
            steps: Vec::new(),
            compaction: false,
            moment: m.clone().into(),
        },
    )
    .render();
    settle().await;
    assert_eq!(count(&quiet, "figure.flow"), 1);
    assert_eq!(count(&quiet, "li.lit"), 0);
}

#[wasm_bindgen_test]
async fn context_view_shows_the_engines_counts_before_and_after() {
    let (_, m) = compact_analysis();
    let root = mount_point();
    Renderer::<ContextView>::with_root_and_props(
        root.clone(),
        ContextViewProps {
            moment: m.clone().into(),
            touched: Vec::new(),
            open: Vec::new(),
            on_lineage: Callback::noop(),
            thinking: Default::default(),
            preserve: 1,
            on_preserve: Callback::noop(),
        },
    )
    .render();
    settle().await;
    let shown = text(&root);
    assert!(shown.contains(&grouped(m.tokens_before)), "count before");
    assert!(shown.contains(&grouped(m.frame.count.tokens)), "count after");
    assert!(shown.contains(&format!("{} messages summarised", m.summarised)));
    assert!(shown.contains(&format!("Before: {} messages", m.before.len())));
    assert!(shown.contains(&format!("After: {} messages", m.after.len())));
    assert!(
        shown.contains("Boundary written"),
        "a successful /compact writes a boundary"
    );
}

#[wasm_bindgen_test]
async fn readout_shows_the_lines_the_engine_computes() {
    let t = Thresholds::compute(&ThresholdSettings::for_window(1_000_000).with_max_output_tokens(32_000))
        .unwrap();
    let root = mount_point();
    Renderer::<Readout>::with_root_and_props(
        root.clone(),
        ReadoutProps {
            thresholds: t.clone(),
        },
    )
    .render();
    settle().await;
    let shown = text(&root);
    for n in [t.budget, t.precompute, t.warn, t.compact, t.blocked] {
        assert!(shown.contains(&grouped(n)), "{n} shown in {shown}");
    }
    assert!(
        shown.contains(&grouped(967_000)),
        "the compact line for a 1M window"
    );
}

#[wasm_bindgen_test]
async fn the_page_reruns_the_engine_when_a_control_changes() {
    let root = mount_point();
    Renderer::<App>::with_root(root.clone()).render();
    settle().await;
    open_evidence(&root).await;
    assert!(
        count(&root, "table.steps tbody tr") > 0,
        "the first scenario's steps are shown"
    );
    let window: HtmlInputElement = root
        .query_selector("input#window")
        .unwrap()
        .expect("a labelled window field")
        .dyn_into()
        .unwrap();
    window.set_value("1000000");
    let event = web_sys::InputEvent::new("input").unwrap();
    window.dispatch_event(&event).unwrap();
    settle().await;
    // 1,000,000 − the 20,000 reserve − 13,000 (R1.2), computed by the engine.
    assert!(
        text(&root).contains(&grouped(967_000)),
        "the page shows the new compact line"
    );
}

/// Types `value` into the text area `selector` as a visitor does.
async fn type_into(root: &Element, selector: &str, value: &str) {
    let field: HtmlTextAreaElement = root
        .query_selector(selector)
        .unwrap()
        .expect(selector)
        .dyn_into()
        .unwrap();
    field.set_value(value);
    field
        .dispatch_event(&web_sys::InputEvent::new("input").unwrap())
        .unwrap();
    settle().await;
}

/// The summary text the page shows.
fn summary_shown(root: &Element) -> String {
    root.query_selector("details.summary-text pre")
        .unwrap()
        .and_then(|e| e.text_content())
        .unwrap_or_default()
}

/// The attachment candidates the page lists, in order.
fn candidates_shown(root: &Element) -> Vec<String> {
    let rows = root.query_selector_all("table.attachments tbody tr").unwrap();
    (0..rows.length())
        .filter_map(|i| {
            rows.item(i)?
                .dyn_into::<Element>()
                .ok()?
                .get_attribute("data-path")
        })
        .collect()
}

#[wasm_bindgen_test]
async fn inputs_change_the_summarys_emphasis_and_the_candidates_and_each_step_shows_owner_and_evidence() {
    let root = mount_point();
    Renderer::<App>::with_root(root.clone()).render();
    settle().await;
    open_evidence(&root).await;
    // compact-analysis's own /compact instructions choose what it quotes.
    let own = summary_shown(&root);
    assert!(
        own.contains("instructions' terms (user, requests, source, locations, probe"),
        "{own}"
    );
    let own_files = candidates_shown(&root);
    assert!(own_files.contains(&"analysis/runtime-probes/agent-loop-tool-result-resume.json".to_owned()));
    // The user's instructions change the summary's emphasis.
    type_into(&root, "textarea#instructions", "focus on the runtime probe").await;
    let probe = summary_shown(&root);
    assert!(probe.contains("instructions' terms (runtime, probe):"), "{probe}");
    assert!(probe.contains("agent-loop-tool-result-resume.json"), "{probe}");
    assert_ne!(own, probe);
    // The session's inputs change the attachment candidates.
    type_into(&root, "textarea#reads", "src/alpha.rs\nsrc/beta.rs").await;
    let reads = ["src/alpha.rs".to_owned(), "src/beta.rs".to_owned()];
    let s = scenario_reading("compact-analysis", 0, &reads).unwrap();
    let mut knobs = Knobs::of(&s);
    knobs.instructions = Some("focus on the runtime probe".to_owned());
    let e = explore(&s, &knobs).unwrap();
    let m = e.moments.iter().find(|m| m.frame.kind == "compact").unwrap();
    let Some(Outcome::Compacted { attachments, .. }) = &m.outcome else {
        panic!("the /compact compacts: {:?}", m.outcome);
    };
    let expected: Vec<String> = attachments.iter().map(|c| c.path.clone()).collect();
    assert_eq!(candidates_shown(&root), expected);
    // The most recent reads first: the source read by the last group, then
    // the visitor's files, the later one first.
    assert_eq!(
        expected[..3],
        [
            "reverse/javascript/cli.readable.js",
            "src/beta.rs",
            "src/alpha.rs"
        ],
        "the most recent reads first"
    );
    assert!(!expected
        .iter()
        .any(|p| p.ends_with("agent-loop-tool-result-resume.json")));
    // Every step the engine took shows the owner and evidence it gave.
    let rows = root.query_selector_all("table.steps tbody tr").unwrap();
    assert_eq!(rows.length() as usize, m.frame.steps.len());
    for (i, step) in m.frame.steps.iter().enumerate() {
        let row = rows.item(i as u32).unwrap().text_content().unwrap_or_default();
        assert!(
            row.contains(owner_name(step.owner)),
            "step {i} {}: owner in {row}",
            step.rule
        );
        let (kind, detail) = evidence(&step.evidence);
        assert!(row.contains(kind), "step {i} {}: evidence in {row}", step.rule);
        if let Some(d) = detail {
            assert!(row.contains(d), "step {i}: evidence detail {d} in {row}");
        }
    }
    let owners: Vec<&str> = m.frame.steps.iter().map(|s| owner_name(s.owner)).collect();
    assert!(
        owners.contains(&"client") && owners.contains(&"model"),
        "{owners:?}"
    );
}

/// Chooses `value` in the drop-down `selector` as a visitor does.
async fn choose(root: &Element, selector: &str, value: &str) {
    let select: web_sys::HtmlSelectElement = root
        .query_selector(selector)
        .unwrap()
        .expect(selector)
        .dyn_into()
        .unwrap();
    select.set_value(value);
    select
        .dispatch_event(&web_sys::Event::new("change").unwrap())
        .unwrap();
    settle().await;
}

/// The `data-fate` of every row of the thinking table.
fn fates_shown(root: &Element) -> Vec<String> {
    let rows = root.query_selector_all("table.thinking-blocks tbody tr").unwrap();
    (0..rows.length())
        .filter_map(|i| {
            rows.item(i)?
                .dyn_into::<Element>()
                .ok()?
                .get_attribute("data-fate")
        })
        .collect()
}

/// The step row whose rule is `rule`.
fn step_row(root: &Element, rule: &str) -> String {
    let rows = root.query_selector_all("table.steps tbody tr").unwrap();
    (0..rows.length())
        .filter_map(|i| rows.item(i)?.text_content())
        .find(|t| t.contains(rule))
        .unwrap_or_else(|| panic!("no {rule} row"))
}

#[wasm_bindgen_test]
async fn thinking_blocks_show_what_the_setting_did_and_the_r13_1_step_says_why() {
    use compaction_core::api::ThinkingMode;
    let root = mount_point();
    let app = Renderer::<App>::with_root(root.clone()).render();
    settle().await;
    open_evidence(&root).await;
    assert_eq!(
        count(&root, "table.thinking-blocks"),
        0,
        "compact-analysis has no thinking"
    );
    choose(&root, "select#scenario", "thinking").await;
    let s = scenario("thinking", 0).unwrap();
    for (mode, fate, says) in [
        (
            ThinkingMode::Strip,
            "dropped",
            "dropped them whole (thinking: strip)",
        ),
        (ThinkingMode::DropBlock, "stale", "(thinking: drop_block)"),
        (ThinkingMode::Keep, "stale", "(thinking: keep)"),
    ] {
        choose(&root, "select#thinking", mode.name()).await;
        // The page opens on the rewrite: the engine's R13.1 step, drawn.
        let mut knobs = Knobs::of(&s);
        knobs.thinking = mode;
        let e = explore(&s, &knobs).unwrap();
        let m = e
            .moments
            .iter()
            .find(|m| m.frame.steps.iter().any(|st| st.rule == "R13.1"))
            .unwrap();
        let step = m.frame.steps.iter().find(|st| st.rule == "R13.1").unwrap();
        let row = step_row(&root, "R13.1");
        assert!(
            row.contains(&step.reason) && step.reason.contains(says),
            "{mode:?}: {row}"
        );
        assert!(
            row.contains(owner_name(step.owner)) && row.contains(evidence(&step.evidence).0),
            "{row}"
        );
        // Every block of the request after it, with the fate the engine's
        // view gives it: the one before the rewrite kept, the rest per the setting.
        let shown = fates_shown(&root);
        let expected = m.after.iter().flat_map(|i| &i.thinking).count();
        assert_eq!(shown.len(), expected, "{mode:?}");
        assert_eq!(shown[0], "kept", "{mode:?}");
        assert_eq!(
            shown.iter().filter(|f| *f == fate).count(),
            step.blocks.len(),
            "{mode:?}: {shown:?}"
        );
        let counts = root
            .query_selector(".thinking-counts")
            .unwrap()
            .unwrap()
            .text_content()
            .unwrap();
        assert!(counts.contains(&format!("{} ", step.blocks.len())), "{counts}");
        assert!(text(&root).contains(&format!("thinking: {}", mode.name())));
    }
    let redacted = root
        .query_selector("table.thinking-blocks")
        .unwrap()
        .unwrap()
        .text_content()
        .unwrap();
    assert!(redacted.contains("redacted_thinking") && redacted.contains("(encrypted)"));
    // The page writes its URL after each change: unmount it (its pending
    // write goes) and leave the address as it was for the other pages.
    app.destroy();
    let window = web_sys::window().unwrap();
    let path = window.location().pathname().unwrap();
    window
        .history()
        .unwrap()
        .replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&path))
        .unwrap();
}
