//! Settings that would do nothing, refused with their field: a scenario that says it defends
//! the account with fencing tokens while no client ever gets one would check an
//! undefended account and report it as fenced.

use super::build::{error, ScenarioError};
use super::{ProtocolSpec, Scenario};

impl Scenario {
    /// `account.fencing` needs some client that gets a fencing token: from a single-node
    /// lock's `fencing_counter`, or from the token service (`token_service_fencing`).
    pub(super) fn check_fencing_has_tokens(&self) -> Result<(), ScenarioError> {
        let Some(account) = &self.account else {
            return Ok(());
        };
        if !account.fencing || self.clients.iter().any(|c| self.gets_tokens(c)) {
            return Ok(());
        }
        Err(error(
            "account.fencing",
            "fencing is on, but no client gets a fencing token, so the account would check \
             none: give a single-node client a `fencing_counter`, or set `token_service = true` \
             and a client's `token_service_fencing = true`",
        ))
    }

    fn gets_tokens(&self, client: &super::ClientSpec) -> bool {
        let counter = matches!(
            client.protocol.resolved(),
            ProtocolSpec::SingleNode {
                fencing_counter: Some(_),
                ..
            }
        );
        counter || (client.token_service_fencing && self.token_service)
    }
}
