//! The reducer, its URL form and the knobs it hands the engine.

use super::*;

fn after(actions: impl IntoIterator<Item = Action>) -> Rc<SandboxState> {
    actions
        .into_iter()
        .fold(Rc::new(SandboxState::default()), |state, action| {
            state.reduce(action)
        })
}

#[test]
fn default_is_the_seed_scenario_with_the_r1_3_lines() {
    let s = SandboxState::default();
    assert_eq!(s.scenario, "compact-analysis");
    let t = s.thresholds().unwrap();
    assert_eq!(
        [t.budget, t.precompute, t.warn, t.compact, t.blocked],
        [180_000, 144_000, 147_000, 167_000, 177_000]
    );
    assert!(s.instructions.starts_with("keep the user's two requests"));
    let (_, knobs) = s.knobs().unwrap();
    assert_eq!(knobs.preserve_groups, 1);
    assert_eq!(knobs.attachments.max_files, 5);
}

#[test]
fn actions_change_the_knobs() {
    let state = after([
        Action::Set(Field::Window, "1,000,000".into()),
        Action::Set(Field::MaxOutput, "32000".into()),
        Action::Set(Field::PreserveGroups, "3".into()),
        Action::Toggle(Switch::HookBlocks, true),
        Action::HookInstructions("keep paths\n\n  and probes ".into()),
        Action::FileFails("a.rs".into(), true),
        Action::Precompute(PrecomputeSwitch::Stale),
    ]);
    let (_, k) = state.knobs().unwrap();
    assert_eq!(
        (k.window, k.max_output_tokens, k.preserve_groups),
        (1_000_000, Some(32_000), 3)
    );
    assert!(k.policy.hook.block.is_some());
    assert_eq!(k.policy.hook.added_instructions, ["keep paths", "and probes"]);
    assert_eq!(k.policy.failing_files, ["a.rs"]);
    assert_eq!(k.precompute, PrecomputeSwitch::Stale);
    let state = state.reduce(Action::FileFails("a.rs".into(), false));
    assert!(state.knobs().unwrap().1.policy.failing_files.is_empty());
}

#[test]
fn bad_fields_are_shown_not_swallowed() {
    let err = after([Action::Set(Field::Window, "10000".into())])
        .knobs()
        .unwrap_err();
    assert!(err.contains("`window` = 10000"), "{err}");
    let err = after([Action::Set(Field::PreserveGroups, "0".into())])
        .knobs()
        .unwrap_err();
    assert!(err.contains("at least 1"), "{err}");
    let err = after([Action::Set(Field::MaxFiles, "1.5".into())])
        .knobs()
        .unwrap_err();
    assert!(err.contains("whole number"), "{err}");
    let err = after([Action::Set(Field::ExtraGroups, "lots".into())])
        .knobs()
        .unwrap_err();
    assert!(err.contains("not a number"), "{err}");
    let err = after([Action::Set(Field::ExtraGroups, "5000".into())])
        .knobs()
        .unwrap_err();
    assert!(err.contains("at most 200"), "{err}");
}

#[test]
fn a_scenario_brings_its_own_settings_and_keeps_embed() {
    let s = SandboxState {
        embed: Some("chart".into()),
        ..SandboxState::default()
    };
    let s = Rc::new(s)
        .reduce(Action::Set(Field::Window, "500000".into()))
        .reduce(Action::Scenario("breakers".into()));
    assert_eq!(s.scenario, "breakers");
    assert_eq!(s.field(Field::Window), "200000");
    assert!(s.on(Switch::AllDown));
    assert_eq!(s.embed.as_deref(), Some("chart"));
    let expert = s
        .clone()
        .reduce(Action::Expert(true))
        .reduce(Action::Scenario("chained".into()));
    assert!(expert.expert, "the mode outlives a scenario change");
    let same = s.clone().reduce(Action::Scenario("nope".into()));
    assert_eq!(same.scenario, "breakers");
}

#[test]
fn the_query_round_trips_every_control() {
    let state = after([
        Action::Scenario("tool-heavy".into()),
        Action::Set(Field::OverridePct, "70".into()),
        Action::Set(Field::Total, "12000".into()),
        Action::Toggle(Switch::PrimaryDown, true),
        Action::FileFails("src/a b&c=d.rs".into(), true),
        Action::HookInstructions("keep ünïcode & more\nsecond".into()),
        Action::Instructions("summarise 100% of it".into()),
        Action::Precompute(PrecomputeSwitch::Moved),
        Action::Thinking(ThinkingMode::DropBlock),
        Action::Moment(3),
        Action::Expert(true),
    ]);
    let mut state = (*state).clone();
    state.embed = Some("chart".into());
    let q = state.to_query();
    assert!(!q.contains(' '));
    assert!(q.contains("thinking=drop_block"), "{q}");
    assert!(q.contains("expert=1"), "{q}");
    assert_eq!(SandboxState::from_query(&format!("?{q}")), state);
}

#[test]
fn the_thinking_setting_reaches_the_knobs_and_a_bad_one_is_ignored() {
    let s = SandboxState::for_scenario("thinking");
    assert_eq!(s.thinking, ThinkingMode::Strip, "the scenario's own setting");
    assert!(
        !s.to_query().contains("thinking="),
        "the default stays out of the URL"
    );
    let s = Rc::new(s).reduce(Action::Thinking(ThinkingMode::Keep));
    assert_eq!(s.knobs().unwrap().1.thinking, ThinkingMode::Keep);
    let bad = SandboxState::from_query("scenario=thinking&thinking=maybe");
    assert_eq!(bad.thinking, ThinkingMode::Strip);
}

#[test]
fn a_hostile_query_gives_a_state_not_a_panic() {
    for q in [
        "%",
        "%zz",
        "a=%e2%82",
        "scenario=%00&window=-1&embed=1&panel=<script>",
        "&&==&",
    ] {
        let s = SandboxState::from_query(q);
        let _ = s.knobs();
        if let Some(p) = &s.embed {
            assert!(PANELS.contains(&p.as_str()));
        }
    }
    assert_eq!(decode("a%20b+c%2"), "a b c%2");
}

#[test]
fn a_settings_error_names_the_field_to_fix() {
    let mut s = SandboxState::default();
    for (field, text, want) in [
        (Field::Window, "12ab", Field::Window),
        (Field::Window, "10000", Field::Window),
        (Field::Window, "", Field::Window),
        (Field::MaxOutput, "-5", Field::MaxOutput),
        (Field::OverridePct, "150", Field::OverridePct),
        (Field::PerFile, "x", Field::PerFile),
        (Field::PreserveGroups, "0", Field::PreserveGroups),
    ] {
        let good = s.fields[field as usize].clone();
        s.fields[field as usize] = text.to_owned();
        let message = s
            .knobs()
            .err()
            .unwrap_or_else(|| panic!("{text} in {field:?} is accepted"));
        assert_eq!(field_of(&message), Some(want), "{message}");
        s.fields[field as usize] = good;
    }
    assert!(s.knobs().is_ok());
    assert_eq!(field_of("no built-in scenario is called “x”"), None);
}
