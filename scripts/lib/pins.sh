# Tool versions the scripts install, in one place. Sourced, not run.
# wasm-bindgen's version is not here: it is read from Cargo.lock
# (see wasm_bindgen_version in common.sh), and Trunk.toml must agree.
# npm packages are pinned by tests/package-lock.json.

# Debian's rustc-web 1.96 (bookworm-security) with its std source and clippy:
# the offline wasm32 toolchain (ARCHITECTURE.md, "Toolchain").
DEBIAN_RUST_WEB_VERSION="1.96.0+dfsg1-1~deb12u2"
DEBIAN_LLD_VERSION="1:19.1.7-3~deb12u1"
# Trunk 0.22 needs rustc >= 1.96.1; 0.21.14 builds with the host's 1.95.
TRUNK_VERSION="0.21.14"
