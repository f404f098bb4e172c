//! Outreach: the invitations, reminders and thank-you messages a campaign's delivery settings ask
//! for, sent by email, SMS or WhatsApp through an outbox and a worker, and the opt-outs that stop
//! them.

pub mod models;
pub mod ports;
pub mod service;
