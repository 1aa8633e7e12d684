//! Shared test support: a real `redis-server` to compare the model with, the conversion of
//! its replies into the model's [`Reply`](lockcheck_model::redis::Reply), and the wall clock.

// Each test binary uses its own part of the support code.
#![allow(dead_code)]

pub mod real_redis;
pub mod wall;
