//! Entry point Trunk builds: mounts the sandbox on the page's body.

fn main() {
    yew::Renderer::<compaction_sandbox::App>::new().render();
}
