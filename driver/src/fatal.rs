//! A panic of the driver (a bug of its own) ends the whole process at
//! once, from whichever thread it came: one line on standard error, then
//! `abort`. Without it a panicking worker thread would end alone and leave
//! the search waiting for its results.

/// Makes every later panic print `who: internal error: MESSAGE at FILE:LINE`
/// and abort the process.
pub fn abort_on_panic(who: &'static str) {
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".to_string());
        let place = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        eprintln!("{who}: internal error: {message}{place}; please report this");
        std::process::abort();
    }));
}
