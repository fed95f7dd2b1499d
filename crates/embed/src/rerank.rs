//! The rerank step of a fused search: the request's fit to each candidate's
//! parameters (issue 34's "fields, normalised" idea, the one of four ideas that
//! held on every public set; `eval/rerank_study.py` measures all four).
//!
//! A candidate gains [`PARAM_NAME_WEIGHT`] times the share of its parameter
//! names' words the request holds (a request for "the weather in Paris in
//! celsius" fits `city` and `units` better than `lat`/`lon`), and loses
//! [`UNFILLED_WEIGHT`] per required parameter the request names nothing of, at
//! most [`MAX_UNFILLED`]. Both are read from the tool's own schema, once per
//! tool when it first is a candidate ([`ParamWords`]), so the index build does
//! not grow; each tool is read at most [`MAX_PARAMS`] parameters deep. Every
//! fused candidate (at most the two sides' 50 each) is reranked, so the scores
//! of a result stay in order however far its limit reaches.

use std::collections::HashSet;
use toolsearch_catalog::{text, RuleScore, Tool};

/// The weight of the share of a tool's parameter-name words the request holds.
/// Fitted on the MCP task set (0.05 of 0.02 / 0.05 / 0.1 / 0.2), checked on
/// ToolLens and BFCL; see `eval/README.md`.
pub const PARAM_NAME_WEIGHT: f32 = 0.05;

/// What each required parameter the request names nothing of costs. Fitted on
/// the MCP task set (-0.01 of -0.005 / -0.01 / -0.02 / -0.05); -0.05 (BFCL's
/// best) cost ToolLens 0.008 recall@5.
pub const UNFILLED_WEIGHT: f32 = 0.01;

/// Unfilled required parameters counted at most.
pub const MAX_UNFILLED: usize = 10;

/// Parameters read per tool (property names), at most.
pub const MAX_PARAMS: usize = 64;

/// The request's words as the catalog stems them (the terms it searched with).
pub struct RequestWords<'q>(HashSet<&'q str>);

impl<'q> RequestWords<'q> {
    /// The stems of `terms`.
    pub fn new(terms: impl IntoIterator<Item = &'q str>) -> Self {
        RequestWords(terms.into_iter().collect())
    }

    fn holds(&self, stem: &str) -> bool {
        self.0.contains(stem)
    }
}

/// A tool's parameter words as the rerank reads them: the distinct stems of its
/// parameter names, and each required parameter's stems (a required name with
/// no word is left out). Computed once per tool of a snapshot, when it first is
/// a candidate ([`crate::SemanticIndex`] keeps them).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ParamWords {
    names: Box<[Box<str>]>,
    required: Box<[Box<[Box<str>]>]>,
}

impl ParamWords {
    /// Reads `tool`'s schema: its first [`MAX_PARAMS`] property names and
    /// required names.
    pub fn of(tool: &Tool) -> ParamWords {
        let schema = &tool.input_schema;
        let mut names: Vec<Box<str>> = Vec::new();
        if let Some(props) = schema.get("properties").and_then(|p| p.as_object()) {
            for name in props.keys().take(MAX_PARAMS) {
                for stem in text::terms(name) {
                    if !names.iter().any(|n| **n == *stem) {
                        names.push(stem.into());
                    }
                }
            }
        }
        let required = schema
            .get("required")
            .and_then(|r| r.as_array())
            .into_iter()
            .flatten()
            .filter_map(|r| r.as_str())
            .take(MAX_PARAMS)
            .map(|name| -> Box<[Box<str>]> {
                text::terms(name).into_iter().map(Into::into).collect()
            })
            .filter(|stems| !stems.is_empty())
            .collect();
        ParamWords {
            names: names.into(),
            required,
        }
    }
}

/// The parts a tool with `words` gets for its fit to the request: `param_names`
/// (a gain) and `unfilled_required` (a cost), each only when not zero.
pub fn fit(words: &ParamWords, request: &RequestWords) -> Vec<RuleScore> {
    let mut parts = Vec::new();
    let held = words.names.iter().filter(|s| request.holds(s)).count();
    if held > 0 {
        let gain = PARAM_NAME_WEIGHT * held as f32 / words.names.len() as f32;
        parts.push(RuleScore::new("param_names", None, gain));
    }
    let unfilled = words
        .required
        .iter()
        .filter(|stems| !stems.iter().any(|s| request.holds(s)))
        .count()
        .min(MAX_UNFILLED);
    if unfilled > 0 {
        let cost = -UNFILLED_WEIGHT * unfilled as f32;
        parts.push(RuleScore::new("unfilled_required", None, cost));
    }
    parts
}

/// Adds each candidate's fit to its score (and parts) and reorders them, best
/// first, ties by `id`. `words` gives a candidate's [`ParamWords`].
pub fn rerank<'w, 'i>(
    fused: &mut [(usize, f32, Vec<RuleScore>)],
    request: &RequestWords,
    words: impl Fn(usize) -> &'w ParamWords,
    id: impl Fn(usize) -> &'i str,
) {
    for (doc, score, parts) in fused.iter_mut() {
        let fit = fit(words(*doc), request);
        *score += fit.iter().map(|p| p.score as f32).sum::<f32>();
        parts.extend(fit);
    }
    fused.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| id(a.0).cmp(id(b.0))));
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use toolsearch_catalog::Source;

    fn tool(name: &str, schema: serde_json::Value) -> Tool {
        Tool::new(Source::Client, None, name, "a tool", schema)
    }

    fn words(q: &str) -> Vec<String> {
        text::terms(q)
    }

    #[test]
    fn the_request_s_parameter_words_gain_and_unfilled_required_ones_cost() {
        let by_city = tool(
            "weather_by_city",
            json!({"type": "object", "properties": {"city": {"type": "string"}, "units": {"type": "string"}}, "required": ["city"]}),
        );
        let by_point = tool(
            "weather_by_point",
            json!({"type": "object", "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}}, "required": ["lat", "lon"]}),
        );
        let q = words("weather in the city of Paris, units celsius");
        let request = RequestWords::new(q.iter().map(String::as_str));
        let city = fit(&ParamWords::of(&by_city), &request);
        assert_eq!(city.len(), 1, "{city:?}");
        assert_eq!(city[0].rule, "param_names");
        assert!((city[0].score - f64::from(PARAM_NAME_WEIGHT)).abs() < 1e-6);
        let point = fit(&ParamWords::of(&by_point), &request);
        assert_eq!(point.len(), 1, "{point:?}");
        assert_eq!(point[0].rule, "unfilled_required");
        assert!((point[0].score + 2.0 * f64::from(UNFILLED_WEIGHT)).abs() < 1e-6);
        // Reordered on their fit: the point tool led by a little, the city tool
        // now does; the parts add up to the scores.
        let tools = [by_point, by_city];
        let mut fused = vec![
            (0, 0.52, vec![RuleScore::new("lexical", None, 0.52)]),
            (1, 0.50, vec![RuleScore::new("lexical", None, 0.50)]),
        ];
        let words: Vec<ParamWords> = tools.iter().map(ParamWords::of).collect();
        rerank(
            &mut fused,
            &request,
            |d| &words[d],
            |d| tools[d].id.as_str(),
        );
        assert_eq!(fused[0].0, 1);
        for (_, score, parts) in &fused {
            let sum: f64 = parts.iter().map(|p| p.score).sum();
            assert!((sum - f64::from(*score)).abs() < 1e-5, "{parts:?}");
        }
    }

    #[test]
    fn a_schema_without_parameters_or_with_hostile_ones_is_read_within_bounds() {
        let request = RequestWords::new(["city"]);
        let none = ParamWords::of(&tool("none", json!({"type": "object"})));
        assert_eq!(none, ParamWords::default());
        assert!(fit(&none, &request).is_empty());
        // Hundreds of required names: read up to MAX_PARAMS, cost up to MAX_UNFILLED.
        let required: Vec<String> = (0..200u8)
            .map(|i| {
                format!(
                    "param{}{}",
                    (b'a' + i / 26) as char,
                    (b'a' + i % 26) as char
                )
            })
            .collect();
        let props: serde_json::Map<String, serde_json::Value> = required
            .iter()
            .map(|r| (r.clone(), json!({"type": "string"})))
            .collect();
        let many = tool(
            "many",
            json!({"type": "object", "properties": props, "required": required}),
        );
        let words = ParamWords::of(&many);
        assert!(words.names.len() <= MAX_PARAMS && words.required.len() <= MAX_PARAMS);
        let parts = fit(&words, &request);
        let cost: f64 = parts.iter().map(|p| p.score).sum();
        assert!(
            (cost + f64::from(UNFILLED_WEIGHT) * MAX_UNFILLED as f64).abs() < 1e-6,
            "{parts:?}"
        );
        // Required names that are not strings, or have no words, cost nothing.
        let odd = tool(
            "odd",
            json!({"type": "object", "properties": {}, "required": [1, "", "--"]}),
        );
        assert!(fit(&ParamWords::of(&odd), &request).is_empty());
    }
}
