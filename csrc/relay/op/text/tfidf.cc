/*!
 * \file tfidf.cc
 * \brief text.tfidf_vectorizer (ONNX TfIdfVectorizer over integer tokens): the relation checks that the pool,
 *        its n-gram boundaries, indexes and weights are consistent and sizes the output by max(ngram_indexes) + 1.
 */
#include <tvmlite/relay/attrs/text.h>
#include <tvmlite/relay/type_rel.h>

#include <algorithm>
#include <vector>

namespace tvmlite {
namespace relay {

Type TfIdfVectorizerRel(const Array<Type>& args, const TfIdfVectorizerAttrs& a) {
  const TensorTypeNode* data = TensorArg(args, 0);
  TVMLITE_CHECK_KIND(data->shape.size() == 1 || data->shape.size() == 2, ValueError)
      << "data must be (C,) or (N, C), got shape " << ShapeToString(data->shape);
  TVMLITE_CHECK_KIND(data->dtype.is_int(), TypeError) << "data must hold integer tokens, got " << data->dtype.str();
  TVMLITE_CHECK_KIND(a.mode == "TF" || a.mode == "IDF" || a.mode == "TFIDF", ValueError)
      << "mode must be TF, IDF or TFIDF, got '" << a.mode << "'";
  TVMLITE_CHECK_KIND(a.min_gram_length >= 1 && a.min_gram_length <= a.max_gram_length, ValueError)
      << "need 1 <= min_gram_length <= max_gram_length, got " << a.min_gram_length << " and " << a.max_gram_length;
  TVMLITE_CHECK_KIND(a.max_skip_count >= 0, ValueError) << "max_skip_count must be >= 0, got " << a.max_skip_count;
  TVMLITE_CHECK_KIND(!a.ngram_indexes.empty(), ValueError) << "ngram_indexes is empty";
  const int64_t pool = static_cast<int64_t>(a.pool_int64s.size());
  // ngram_counts: non-decreasing starts within the pool; the (i+1)-gram block holds a multiple of i+1 tokens.
  int64_t num_ngrams = 0;
  for (size_t i = 0; i < a.ngram_counts.size(); ++i) {
    int64_t start = a.ngram_counts[i];
    int64_t end = i + 1 < a.ngram_counts.size() ? a.ngram_counts[i + 1] : pool;
    TVMLITE_CHECK_KIND(start >= 0 && start <= end && end <= pool, ValueError)
        << "ngram_counts must be non-decreasing positions in the pool of " << pool << " tokens, got " << start
        << " then " << end;
    TVMLITE_CHECK_KIND((end - start) % static_cast<int64_t>(i + 1) == 0, ValueError)
        << "the pool's " << i + 1 << "-grams (tokens " << start << " to " << end << ") are not whole " << i + 1
        << "-grams";
    num_ngrams += (end - start) / static_cast<int64_t>(i + 1);
  }
  TVMLITE_CHECK_KIND(num_ngrams == static_cast<int64_t>(a.ngram_indexes.size()), ValueError)
      << "the pool holds " << num_ngrams << " n-grams but ngram_indexes has " << a.ngram_indexes.size();
  TVMLITE_CHECK_KIND(a.weights.empty() || a.weights.size() == a.ngram_indexes.size(), ValueError)
      << "weights has " << a.weights.size() << " values for " << a.ngram_indexes.size() << " n-grams";
  int64_t width = 0;
  for (int64_t idx : a.ngram_indexes) {
    TVMLITE_CHECK_KIND(idx >= 0 && idx < (int64_t(1) << 40), ValueError) << "ngram_indexes holds " << idx;
    width = std::max(width, idx + 1);
  }
  std::vector<Any> out;
  if (data->shape.size() == 2) out.push_back(data->shape[0]);
  out.push_back(Any(width));
  return TensorType(Array<Any>(out), DataType::Float(32));
}

TVMLITE_STATIC_INIT_BLOCK({
  namespace refl = ::tvmlite::runtime::refl;
  TVMLITE_REFLECT_FIELDS(TfIdfVectorizerAttrs, mode, min_gram_length, max_gram_length, max_skip_count, ngram_counts,
                         ngram_indexes, pool_int64s, weights);
});

TVMLITE_REGISTER_OP("text.tfidf_vectorizer")
    .describe("Counts (TF), presence (IDF) or weighted counts (TFIDF) of a pool of skip n-grams per row.")
    .add_argument("data", "Tensor", "(C,) or (N, C) integer tokens.")
    .add_type_rel("TfIdfVectorizer", TfIdfVectorizerRel)
    .set_attr<TOpPattern>("TOpPattern", kOpaque);

}  // namespace relay
}  // namespace tvmlite
