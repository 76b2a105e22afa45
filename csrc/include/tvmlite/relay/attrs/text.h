/*!
 * \file tvmlite/relay/attrs/text.h
 * \brief Attrs of the text-feature ops: text.tfidf_vectorizer (ONNX TfIdfVectorizer).
 *
 *   text.tfidf_vectorizer(data)     data (C,) or (N, C) of token ids -> (K,) or (N, K) float32,
 *                                   K = max(ngram_indexes) + 1: the (weighted) counts of the pool's n-grams.
 *
 * The pool lists every n-gram of the vocabulary flattened, 1-grams first: ngram_counts[i] is the position in the
 * pool where the (i+1)-grams start; the j-th n-gram of the pool is counted in output column ngram_indexes[j].
 */
#ifndef TVMLITE_RELAY_ATTRS_TEXT_H_
#define TVMLITE_RELAY_ATTRS_TEXT_H_

#include <tvmlite/ir/attrs.h>
#include <tvmlite/runtime/reflection.h>

#include <string>

namespace tvmlite {
namespace relay {

/*! \brief text.tfidf_vectorizer: ONNX TfIdfVectorizer over integer tokens. */
struct TfIdfVectorizerAttrs : public ir::AttrsNode {
  /*! \brief "TF" (counts), "IDF" (presence x weight) or "TFIDF" (count x weight). */
  std::string mode = "TF";
  int64_t min_gram_length = 1;
  int64_t max_gram_length = 1;
  /*! \brief n-grams are taken with strides 1 .. max_skip_count + 1. */
  int64_t max_skip_count = 0;
  runtime::Array<int64_t> ngram_counts;
  runtime::Array<int64_t> ngram_indexes;
  runtime::Array<int64_t> pool_int64s;
  /*! \brief One weight per pool n-gram (empty: all ones). */
  runtime::Array<double> weights;

  TVMLITE_DECLARE_ATTRS(TfIdfVectorizerAttrs, "relay.attrs.TfIdfVectorizerAttrs");
};

}  // namespace relay
}  // namespace tvmlite
#endif  // TVMLITE_RELAY_ATTRS_TEXT_H_
