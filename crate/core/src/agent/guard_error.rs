//! What the guard refuses (an address off the allowed sites, a secret that may not be typed
//! here), apart from the guard itself so the page side ([`super::browser::PageError`]) can
//! carry it without the guard's browser wrapper.

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GuardError {
    #[error("{address} is outside the sites this run may use ({allowed}); change \u{201c}Allowed sites\u{201d} in Settings to allow it")]
    OutsideAllowedSites { address: String, allowed: String },
    #[error("no secret named \u{201c}{name}\u{201d} is set up{known}; add it under Secrets in Settings")]
    UnknownSecret { name: String, known: String },
    #[error("the secret \u{201c}{name}\u{201d} is only typed on {sites}, not on {address}")]
    SecretNotForSite { name: String, sites: String, address: String },
    #[error("the secret \u{201c}{name}\u{201d} was not typed: it is bound to no site; set the sites it may be typed on under Secrets in Settings (for a script, SIGHTLINE_SECRET_<NAME>_SITES)")]
    SecretWithoutSites { name: String },
    #[error("the secret \u{201c}{name}\u{201d} was not typed: the field that has focus is in a frame of {address}, outside the sites this run may use ({allowed}); change \u{201c}Allowed sites\u{201d} in Settings to allow it")]
    FrameOutsideAllowedSites { name: String, address: String, allowed: String },
    #[error("the secret \u{201c}{name}\u{201d} was not typed: no field has focus; tap the field it goes into first")]
    NoFieldFocused { name: String },
    #[error("the secret \u{201c}{name}\u{201d} was not typed: the field that has focus ({field}) is not a password, one-time-code or card field{selector}; tap the right field first, or give \u{201c}{name}\u{201d} a field selector under Secrets in Settings that names this field")]
    NotASecretField { name: String, field: String, selector: String },
    #[error("the secret \u{201c}{name}\u{201d} was not typed: Sightline could not see which field has focus ({why}); tap the field it goes into and try again")]
    FocusUnknown { name: String, why: String },
    #[error("that tab is on a site outside the sites this run may use ({allowed}): its address and title are not shown; change \u{201c}Allowed sites\u{201d} in Settings to allow it")]
    TabOutsideAllowedSites { allowed: String },
    #[error("that page of the tab's history is outside the sites this run may use ({allowed}): it was not opened, and its address is not shown")]
    HistoryOutsideAllowedSites { allowed: String },
    #[error("\u{201c}{address}\u{201d} is not a web address: a flow file or a saved run may only open http and https pages, never local files, scripts or the browser's own pages")]
    NotAWebAddress { address: String },
}
