//! Bodies that take exactly one of several groups of fields (a print's `parts` or the legacy
//! flat part; a printer's `manufacturerId` or legacy `manufacturer`; an import's `previews` or
//! `previewHash`): the groups, named once, for the input checks and the OpenAPI document alike.

/// One group of fields of a body that takes exactly one group: its fields, and which of them the
/// group needs.
#[derive(Debug, Clone, Copy)]
pub struct Alternative {
    /// The group's fields (JSON names).
    pub fields: &'static [&'static str],
    /// Those it needs: required and not null.
    pub required: &'static [&'static str],
}

impl Alternative {
    /// A group of fields that are all needed (often one field, the other group's alternative).
    pub const fn needed(fields: &'static [&'static str]) -> Alternative {
        Alternative {
            fields,
            required: fields,
        }
    }
}
