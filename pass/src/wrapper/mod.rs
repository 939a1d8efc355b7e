//! The `reach-cc`/`reach-cxx` compiler wrapper.
