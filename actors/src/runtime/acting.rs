//! Who is acting: the account or part of the appliance on whose behalf a task sends commands,
//! for the journal's entries (`storage::journal::Who`).
//!
//! A task-local value, set for a request by the web crate (each request runs in
//! [`acting_as`]`(Who::System("web"))`, and its session's extractor names the account with
//! [`act_as`]) and for each background round by its actor (`spoolman`, `bambuddy`, `scheduler`,
//! `meters`, `alerts`). [`crate::runtime::writer::Writers::send`] reads it when a command is
//! sent, so no command carries its author and no handler passes one.

use std::cell::RefCell;
use std::future::Future;
use storage::journal::Who;

tokio::task_local! {
    static ACTING: RefCell<Who>;
}

/// Runs `future` with `who` acting (until [`act_as`] names another within it).
pub async fn acting_as<F: Future>(who: Who, future: F) -> F::Output {
    ACTING.scope(RefCell::new(who), future).await
}

/// Names `who` as acting for the rest of the current [`acting_as`] scope; false outside one.
pub fn act_as(who: Who) -> bool {
    ACTING.try_with(|acting| *acting.borrow_mut() = who).is_ok()
}

/// Who is acting: the current scope's, or the appliance itself (`{"system": "appliance"}`)
/// outside any scope.
pub fn current() -> Who {
    ACTING
        .try_with(|acting| acting.borrow().clone())
        .unwrap_or_else(|_| system("appliance"))
}

/// A part of the appliance acting on its own.
pub fn system(name: &str) -> Who {
    Who::System(name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use storage::Id;

    #[tokio::test]
    async fn a_scope_names_who_acts_and_act_as_changes_it_inside_only() {
        assert_eq!(current(), system("appliance"));
        assert!(!act_as(system("x")), "outside a scope nothing is named");
        let account = Id::new();
        let inside = acting_as(system("web"), async {
            let first = current();
            assert!(act_as(Who::Account(account)));
            (first, current())
        })
        .await;
        assert_eq!(inside, (system("web"), Who::Account(account)));
        assert_eq!(current(), system("appliance"));
    }
}
