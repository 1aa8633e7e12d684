//! A Redisson client's parameters as text, and the builders the built-ins use. A world's
//! model hash is made of this text, so what was added after a field's first release is
//! written only when it is set.

use super::{Generation, Lease, Redisson, Retries, Servers};

/// One server, no fair lock and no re-sends print as before those could be configured, so
/// those worlds keep their model hashes.
impl std::fmt::Debug for Redisson {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("Redisson");
        d.field("node", &self.node)
            .field("lease", &self.lease)
            .field("watchdog_timeout_ms", &self.watchdog_timeout_ms)
            .field("wait_ms", &self.wait_ms)
            .field("generation", &self.generation)
            .field("request_timeout_ms", &self.request_timeout_ms);
        if self.servers != Servers::Single {
            d.field("servers", &self.servers);
        }
        if let Some(fair) = &self.fair {
            d.field("fair", fair);
        }
        if self.retries != Retries::NONE {
            d.field("retries", &self.retries);
        }
        d.finish()
    }
}

impl Redisson {
    pub fn with_servers(mut self, servers: Servers) -> Self {
        self.servers = servers;
        self
    }

    /// An explicit lease (no watchdog).
    pub fn with_lease_ms(mut self, lease_ms: u64) -> Self {
        self.lease = Lease::Explicit(lease_ms);
        self
    }

    /// `tryLock` with this wait time.
    pub fn with_wait_ms(mut self, wait_ms: u64) -> Self {
        self.wait_ms = Some(wait_ms);
        self
    }

    pub fn with_watchdog_timeout_ms(mut self, timeout_ms: u64) -> Self {
        self.watchdog_timeout_ms = timeout_ms;
        self
    }

    pub fn with_generation(mut self, generation: Generation) -> Self {
        self.generation = generation;
        self
    }

    pub fn with_request_timeout_ms(mut self, timeout_ms: u64) -> Self {
        self.request_timeout_ms = timeout_ms;
        self
    }

    /// Re-sends as `retryAttempts` and `retryInterval` say.
    pub fn with_retries(mut self, retries: Retries) -> Self {
        self.retries = retries;
        self
    }
}
