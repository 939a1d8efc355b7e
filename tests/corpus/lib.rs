//! Empty: this package only pins the crates whose C sources the corpus uses.
