//! Initialisation in an ELF constructor: attach to the channel, read the
//! request, and make the main thread thread 0.

use crate::chan::{AttachError, Chan};
use crate::state::{set_debug, set_me, state, TState, MODE, MODE_ACTIVE};
use crate::sys;
use core::sync::atomic::Ordering;
use reach_channel::ThreadState;

fn parse_fd(s: &[u8]) -> Option<i32> {
    if s.is_empty() || s.len() > 9 {
        return None;
    }
    let mut v: i32 = 0;
    for c in s {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v * 10 + i32::from(c - b'0');
    }
    Some(v)
}

/// Removes the driver's padding variables (`reach_channel::env::PAD_PREFIX`)
/// from the environment, in place.
///
/// # Safety
///
/// Single-threaded start-up only: `environ` must not change meanwhile.
unsafe fn drop_padding() {
    extern "C" {
        static mut environ: *mut *mut libc::c_char;
    }
    let prefix = reach_channel::env::PAD_PREFIX.as_bytes();
    // SAFETY: `environ` is the C library's NULL-terminated array of
    // NUL-terminated strings; entries are moved down within it.
    unsafe {
        let list = environ;
        if list.is_null() {
            return;
        }
        let (mut from, mut to) = (0usize, 0usize);
        loop {
            let entry = *list.add(from);
            if entry.is_null() {
                break;
            }
            let padding = (0..prefix.len()).all(|i| *entry.add(i) as u8 == prefix[i]);
            if !padding {
                *list.add(to) = entry;
                to += 1;
            }
            from += 1;
        }
        *list.add(to) = std::ptr::null_mut();
    }
}

fn env(name: &core::ffi::CStr) -> Option<&'static [u8]> {
    // SAFETY: getenv with a NUL-terminated name; the result (if any) is a
    // NUL-terminated string in the environment.
    unsafe {
        let p = libc::getenv(name.as_ptr());
        if p.is_null() {
            None
        } else {
            Some(core::ffi::CStr::from_ptr(p).to_bytes())
        }
    }
}

extern "C" fn reach_init() {
    set_debug(env(c"REACH_DEBUG") == Some(b"1"));
    let Some(fd) = env(c"REACH_CHANNEL_FD").and_then(parse_fd) else {
        return;
    };
    let chan = match Chan::attach(fd) {
        Ok(c) => c,
        Err(AttachError::Invalid) => return,
        Err(AttachError::Version(_)) => {
            sys::write_stderr(
                b"reach-runtime: the driver speaks another channel version; rebuild reach-native and its runtime together\n",
            );
            sys::exit_group(2);
        }
    };
    crate::forkserver::configure(env(c"REACH_FORK_SERVER"));
    // Programs this one executes must not attach to the channel.
    // SAFETY: plain fcntl on the inherited fd; unsetenv with valid names
    // during single-threaded start-up (the driver sets these variables to
    // values of the same lengths with and without fork server, so the
    // environment has the same layout in both; `LD_BIND_NOW` goes only if the
    // driver, not the user, set it).
    unsafe {
        libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
        libc::unsetenv(c"REACH_CHANNEL_FD".as_ptr());
        libc::unsetenv(c"REACH_FORK_SERVER".as_ptr());
        libc::unsetenv(c"REACH_BIND_LAZY".as_ptr());
        if env(c"LD_BIND_NOW") == Some(reach_channel::env::BIND_NOW_MARK.as_bytes()) {
            libc::unsetenv(c"LD_BIND_NOW".as_ptr());
        }
        drop_padding();
    }
    // SAFETY: start-up is single-threaded; nothing else uses the state yet.
    let st = unsafe { state() };
    st.chan = chan;
    crate::seen::attach(st.chan.header_ptr());
    crate::sources::note_address_randomisation();
    crate::uthread::prepare(crate::uthread::Body {
        start: crate::api::thread::context_start,
        exit: crate::api::thread::context_exit,
    });
    crate::sched::load_request(st);
    st.thread_count = 1;
    st.live_threads = 1;
    st.running = 0;
    st.event_count = 0;
    let main = &mut st.threads[0];
    main.state = TState::Running;
    // SAFETY: plain query.
    main.handle = unsafe { libc::pthread_self() };
    let slot = st.chan.slot(0);
    slot.state = ThreadState::Running as u32;
    slot.parent = u32::MAX;
    slot.tid = crate::sys::gettid() as u32;
    st.chan.set_thread_count(1);
    st.chan.set_event_count(0);
    st.chan.set_running(0);
    if !crate::api::thread::create_exit_key(st) {
        sys::write_stderr(
            b"reach-runtime: cannot create a thread-specific key; running uncontrolled\n",
        );
        return;
    }
    crate::api::thread::arm_exit_key(st);
    crate::api::start::register_exit_handler();
    set_me(0);
    MODE.store(MODE_ACTIVE, Ordering::SeqCst);
}

#[used]
#[link_section = ".init_array"]
static INIT: extern "C" fn() = reach_init;
