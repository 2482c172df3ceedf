//! Device templates: the points of meters that shops use, as data files in `config/templates/`
//! (each names its register map in a comment), built into the binary. A source's
//! `template: <name>` takes them ([`super::config::parse`]).
//!
//! Which and why: the Eastron SDM120 (one phase), SDM630 and SDM72 (three phases) are the
//! meters Home Assistant and evcc users most often put on DIN rails; the Peacefair PZEM-016 is
//! the cheap meter with a current transformer that makers clip in front of one printer; the Chint
//! DDSU666 comes with many inverters (Growatt) and is sold as a cheap SDM120 alternative.

/// Every template: its name and its YAML text (a document with `points:`).
const TEMPLATES: [(&str, &str); 5] = [
    (
        "ddsu666",
        include_str!("../../../config/templates/ddsu666.yml"),
    ),
    (
        "pzem016",
        include_str!("../../../config/templates/pzem016.yml"),
    ),
    (
        "sdm120",
        include_str!("../../../config/templates/sdm120.yml"),
    ),
    (
        "sdm630",
        include_str!("../../../config/templates/sdm630.yml"),
    ),
    ("sdm72", include_str!("../../../config/templates/sdm72.yml")),
];

/// The YAML text of the template `name`, if there is one.
pub fn text(name: &str) -> Option<&'static str> {
    TEMPLATES
        .iter()
        .find(|(known, _)| *known == name)
        .map(|(_, text)| *text)
}

/// The names of every template, in alphabetical order.
pub fn names() -> impl Iterator<Item = &'static str> {
    TEMPLATES.iter().map(|(name, _)| *name)
}
