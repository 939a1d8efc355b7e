//! Finding (or creating) the model of a synchronisation object.

use crate::fail;
use crate::state::State;
use crate::table::{mutex_type, ObjKind};
use reach_channel::RunStatus;

/// Index of the object of `kind` at `addr`, created with `init` if the
/// runtime has not seen it (or saw another kind of object there, e.g. reused
/// memory). Ends the execution with `Unsupported` if the table is full.
pub fn get_or_insert(
    st: &mut State,
    addr: u64,
    kind: ObjKind,
    site: u64,
    init: impl FnOnce(&mut crate::table::Obj),
) -> usize {
    if let Some(i) = st.objects.find(addr) {
        if st.objects.at(i).kind == kind {
            return i;
        }
    }
    match st.objects.insert(addr, kind) {
        Some(i) => {
            init(st.objects.at(i));
            i
        }
        None => fail!(
            st,
            RunStatus::Unsupported,
            site,
            "the program uses more than {} synchronisation objects at once",
            crate::table::CAPACITY
        ),
    }
}

/// The mutex type glibc stored in `pthread_mutex_t.__data.__kind` (offset 16
/// on x86_64), set by `pthread_mutex_init` or a static initialiser.
pub fn glibc_mutex_type(addr: u64) -> u8 {
    // SAFETY: the program passed `addr` as a pthread_mutex_t, which is 40
    // bytes on x86_64.
    let kind = unsafe { ((addr + 16) as *const i32).read_volatile() };
    match (kind & 3) as u8 {
        mutex_type::RECURSIVE => mutex_type::RECURSIVE,
        mutex_type::ERRORCHECK => mutex_type::ERRORCHECK,
        _ => mutex_type::NORMAL,
    }
}

/// The mutex at `addr`.
pub fn mutex(st: &mut State, addr: u64, site: u64) -> usize {
    get_or_insert(st, addr, ObjKind::Mutex, site, |o| {
        o.mtype = glibc_mutex_type(addr)
    })
}
