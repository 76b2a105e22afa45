/*!
 * \file einsum.cc
 * \brief einsum(Tuple of tensors, equation): numpy's Einstein summation, typed by parsing the equation.
 *
 * Grammar: "term,term,...->out" (explicit) or "term,term,..." (implicit); a term is letters [a-zA-Z] with at
 * most one "..." standing for the dims its letters do not cover; spaces are ignored.
 *   - every input's rank must equal its letter count (plus any number of dims under "...");
 *   - a letter's dims agree across all its occurrences (a dim of 1 broadcasts, as in numpy);
 *   - the "..." dims of all inputs broadcast (numpy rules), right-aligned;
 *   - implicit output: the "..." dims, then the letters used exactly once, in alphabetical (ASCII) order;
 *   - explicit output: letters each at most once and present in some input; "..." placed where written.
 * All inputs share one dtype; the result has it too.
 */
#include <tvmlite/relay/attrs/nn.h>
#include <tvmlite/runtime/reflection.h>

#include <map>

#include "window.h"

namespace tvmlite {
namespace relay {

namespace refl = ::tvmlite::runtime::refl;

namespace {

struct Term {
  std::string letters;  // in order, '.' marks where "..." sits
  bool ellipsis = false;
};

Term ParseTerm(const std::string& text, const std::string& equation) {
  Term t;
  for (size_t i = 0; i < text.size(); ++i) {
    char ch = text[i];
    if (ch == '.') {
      TVMLITE_CHECK_KIND(!t.ellipsis && text.compare(i, 3, "...") == 0, ValueError)
          << "einsum equation '" << equation << "': '" << text << "' has a '.' outside a single '...'";
      t.ellipsis = true;
      t.letters.push_back('.');
      i += 2;
    } else {
      TVMLITE_CHECK_KIND((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'), ValueError)
          << "einsum equation '" << equation << "': unexpected character '" << ch << "' in '" << text << "'";
      t.letters.push_back(ch);
    }
  }
  return t;
}

/*! \brief Unify a letter's dim with another occurrence: 1 broadcasts, static dims must agree. */
Any UnifyLabelDim(const Any& have, const Any& next, char letter, const std::string& equation) {
  if (DimIs(have, 1)) return next;
  if (DimIs(next, 1) || DimEqual(have, next)) return have;
  bool both_static = have.type_index() == kTVMLiteInt && next.type_index() == kTVMLiteInt;
  TVMLITE_CHECK_KIND(!both_static, ValueError) << "einsum equation '" << equation << "': label '" << letter
                                               << "' has sizes " << DimToString(have) << " and " << DimToString(next);
  return have.type_index() == kTVMLiteInt ? have : next;
}

Type EinsumRel(const Array<Type>& args, const EinsumAttrs& a) {
  const auto* tuple = args[0].as<TupleTypeNode>();
  TVMLITE_CHECK_KIND(tuple != nullptr, TypeError) << "einsum takes a tuple of tensors, got " << TypeToString(args[0]);
  std::string eq;
  for (char ch : a.equation) {
    if (ch != ' ') eq.push_back(ch);
  }
  size_t arrow = eq.find("->");
  std::string lhs = arrow == std::string::npos ? eq : eq.substr(0, arrow);
  std::vector<Term> terms;
  size_t start = 0;
  while (true) {
    size_t comma = lhs.find(',', start);
    terms.push_back(
        ParseTerm(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start), a.equation));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  TVMLITE_CHECK_KIND(terms.size() == tuple->fields.size(), ValueError)
      << "einsum equation '" << a.equation << "' has " << terms.size() << " input terms for " << tuple->fields.size()
      << " inputs";
  std::map<char, Any> dims;
  std::map<char, int> counts;
  Array<Any> ellipsis_dims;
  DataType dtype;
  for (size_t i = 0; i < terms.size(); ++i) {
    const auto* t = tuple->fields[i].as<TensorTypeNode>();
    TVMLITE_CHECK_KIND(t != nullptr, TypeError) << "einsum input " << i << " must be a tensor";
    if (i == 0) dtype = t->dtype;
    TVMLITE_CHECK_KIND(t->dtype == dtype, TypeError) << "einsum inputs must share a dtype: input 0 is " << dtype.str()
                                                     << ", input " << i << " is " << t->dtype.str();
    const Term& term = terms[i];
    size_t n_letters = term.letters.size() - (term.ellipsis ? 1 : 0);
    TVMLITE_CHECK_KIND(term.ellipsis ? t->ndim() >= n_letters : t->ndim() == n_letters, ValueError)
        << "einsum equation '" << a.equation << "': term " << i << " names " << n_letters << " dims"
        << (term.ellipsis ? " (plus '...')" : "") << " but input " << i << " has shape " << ShapeToString(t->shape);
    size_t n_ell = t->ndim() - n_letters, d = 0;
    for (char ch : term.letters) {
      if (ch == '.') {
        std::vector<Any> shape = ToVector(t->shape);
        Array<Any> ell(std::vector<Any>(shape.begin() + d, shape.begin() + d + n_ell));
        ellipsis_dims = BroadcastShapes(ellipsis_dims, ell);
        d += n_ell;
        continue;
      }
      Any dim = t->shape[d++];
      auto it = dims.find(ch);
      dims[ch] = it == dims.end() ? dim : UnifyLabelDim(it->second, dim, ch, a.equation);
      ++counts[ch];
    }
  }
  std::vector<Any> out;
  if (arrow == std::string::npos) {
    out = ToVector(ellipsis_dims);
    for (const auto& [ch, n] : counts) {  // std::map: ASCII order, as numpy
      if (n == 1) out.push_back(dims[ch]);
    }
  } else {
    Term o = ParseTerm(eq.substr(arrow + 2), a.equation);
    std::string seen;
    for (char ch : o.letters) {
      if (ch == '.') {
        for (const Any& dim : ToVector(ellipsis_dims)) out.push_back(dim);
        continue;
      }
      TVMLITE_CHECK_KIND(dims.count(ch), ValueError)
          << "einsum equation '" << a.equation << "': output label '" << ch << "' is in no input";
      TVMLITE_CHECK_KIND(seen.find(ch) == std::string::npos, ValueError)
          << "einsum equation '" << a.equation << "': output label '" << ch << "' is repeated";
      seen.push_back(ch);
      out.push_back(dims[ch]);
    }
  }
  return TensorType(Array<Any>(out), dtype);
}

}  // namespace

TVMLITE_STATIC_INIT_BLOCK({ TVMLITE_REFLECT_FIELDS(EinsumAttrs, equation); });

TVMLITE_REGISTER_OP("einsum")
    .describe("Einstein summation over a tuple of tensors (numpy.einsum's equation grammar, '...' included).")
    .add_argument("tensors", "Tuple", "The operands.")
    .add_type_rel("Einsum", EinsumRel)
    .set_attr<TOpPattern>("TOpPattern", kInjective);

}  // namespace relay
}  // namespace tvmlite
