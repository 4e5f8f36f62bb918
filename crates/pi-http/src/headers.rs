//! The one header merge every wire uses: an ordered list where a later value
//! replaces an earlier one of the same name.

/// Request headers in sending order. Names are stored lower-cased (as HTTP/2
/// sends them); setting a name that is already present replaces its value in
/// place, whatever the case it was given in.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Headers(Vec<(String, String)>);

impl Headers {
    /// No headers.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets `name` to `value`, replacing an earlier value of the same name.
    pub fn set(&mut self, name: &str, value: &str) {
        let name = name.to_ascii_lowercase();
        match self.0.iter_mut().find(|(n, _)| *n == name) {
            Some(entry) => value.clone_into(&mut entry.1),
            None => self.0.push((name, value.to_owned())),
        }
    }

    /// Sets every pair of `pairs` in order (later pairs win).
    pub fn merge<'a, I>(&mut self, pairs: I)
    where
        I: IntoIterator<Item = (&'a String, &'a String)>,
    {
        for (name, value) in pairs {
            self.set(name, value);
        }
    }

    /// Removes `name` (any case), if set.
    pub fn remove(&mut self, name: &str) {
        self.0.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
    }

    /// The value of `name` (any case), if set.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The pairs, in sending order.
    pub fn into_pairs(self) -> Vec<(String, String)> {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_values_replace_earlier_ones_in_place() {
        let mut headers = Headers::new();
        headers.set("Content-Type", "a");
        headers.set("x-one", "1");
        headers.merge([(&"CONTENT-TYPE".to_owned(), &"b".to_owned())]);
        assert_eq!(headers.get("content-type"), Some("b"));
        assert_eq!(
            headers.into_pairs(),
            vec![
                ("content-type".to_owned(), "b".to_owned()),
                ("x-one".to_owned(), "1".to_owned())
            ]
        );
    }
}
